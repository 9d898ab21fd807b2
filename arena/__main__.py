from arena.cli.main import main

raise SystemExit(main())
