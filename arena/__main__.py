import multiprocessing

# Guarded: a worker process started with "spawn" (arena.intake.gate_pool) imports this
# module again under another name, and must neither run the command a second time nor
# load the command line's modules.
if __name__ == "__main__":
    multiprocessing.freeze_support()
    from arena.cli.main import main

    raise SystemExit(main())
