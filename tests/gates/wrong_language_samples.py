# ruff: noqa: E501  (sentences read better unbroken than split to fit a line)
"""Held-out answers for the Language gate, written for Arena's tests.

``WRONG``: answers genuinely in another language than their family's, which
the gate must still catch. Each is (answer language, family language, kind,
text); kind is short (one or two sentences), long (a paragraph), list,
comments (code whose only language is its comments, in the wrong language)
or diff (a unified diff whose added comments are in the wrong language).

``RIGHT_HARD``: answers in their family's language that carry little prose or
much that is not prose (names, formulas, citations, JSON, tables, one-line
code comments, Han-only Japanese). The gate must pass them. Each is (family
language, kind, text). Modelled on what failed on real third-party outputs
(AlpacaEval, FastChat arena-hard, Japanese MT-bench, SWE-bench patches),
re-written, not copied.

Neither set was used to write the gate's rules; the thresholds in
docs/gates.md were chosen on the demo and the real outputs, then checked here.
"""

from __future__ import annotations

FENCE = "```"


def _diff(path: str, added: str) -> str:
    lines = "".join(f"+{line}\n" for line in added.split("\n"))
    count = added.count("\n") + 1
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -10,0 +11,{count} @@\n{lines}"


WRONG: list[tuple[str, str, str, str]] = [
    # German in English families
    ("de", "en", "short", "Ja, das geht. Du musst die Datei nur vorher speichern."),
    ("de", "en", "short", "Die Hauptstadt von Australien ist Canberra, nicht Sydney."),
    (
        "de",
        "en",
        "long",
        "Um den Wasserhahn zu reparieren, dreh zuerst das Wasser unter der Spüle ab. Danach "
        "schraubst du den Griff ab und ersetzt die alte Dichtung durch eine neue. Wenn es danach "
        "immer noch tropft, liegt es meistens an der Kartusche, die man im Baumarkt für wenig Geld bekommt.",
    ),
    (
        "de",
        "en",
        "comments",
        f"{FENCE}python\ndef mittelwert(werte):\n    # Leere Listen abfangen, sonst teilen wir durch null\n"
        "    if not werte:\n        return 0.0\n    # Summe durch Anzahl ergibt den Durchschnitt\n"
        f"    return sum(werte) / len(werte)\n{FENCE}\n",
    ),
    (
        "de",
        "en",
        "diff",
        _diff(
            "src/cache.py",
            "    # Den Eintrag nur löschen, wenn er wirklich abgelaufen ist\n"
            "    if entry.expires_at < now:\n"
            "        # Sonst würden wir gültige Daten unnötig neu laden\n"
            "        del self._store[key]",
        ),
    ),
    # French in English families
    ("fr", "en", "short", "Oui, vous pouvez congeler la soupe pendant trois mois."),
    ("fr", "en", "short", "Il faut redémarrer le routeur avant de changer le mot de passe."),
    (
        "fr",
        "en",
        "long",
        "La photosynthèse est le processus par lequel les plantes transforment la lumière du soleil "
        "en énergie chimique. Les feuilles captent le dioxyde de carbone de l'air et l'eau puisée par "
        "les racines, puis produisent du glucose et rejettent de l'oxygène. Sans ce mécanisme, la vie "
        "telle que nous la connaissons n'existerait pas.",
    ),
    (
        "fr",
        "en",
        "list",
        "Voici quelques idées pour le week-end :\n\n- Faire une randonnée en forêt\n"
        "- Visiter le marché du samedi matin\n- Préparer un pique-nique au bord du lac\n"
        "- Regarder un vieux film avec des amis",
    ),
    (
        "fr",
        "en",
        "comments",
        f"{FENCE}javascript\n// Retourne la liste triée sans modifier l'original\n"
        "function trier(liste) {\n  // On copie d'abord le tableau pour éviter les effets de bord\n"
        f"  return [...liste].sort((a, b) => a - b);\n}}\n{FENCE}\n",
    ),
    # Spanish in English families
    ("es", "en", "short", "Claro, puedes usar vinagre blanco para limpiar el cristal."),
    ("es", "en", "short", "El tren sale a las ocho de la mañana desde la estación central."),
    (
        "es",
        "en",
        "long",
        "Para preparar una buena tortilla de patatas, corta las patatas en láminas finas y fríelas a "
        "fuego lento hasta que estén tiernas. Bate los huevos con un poco de sal, mezcla todo y deja "
        "reposar unos minutos. Después cuaja la tortilla por ambos lados en una sartén bien caliente.",
    ),
    (
        "es",
        "en",
        "comments",
        f"{FENCE}python\n# Leemos el archivo línea por línea para no cargarlo entero en memoria\n"
        "with open(ruta) as archivo:\n    for linea in archivo:\n"
        f"        # Ignoramos las líneas vacías y los comentarios\n        procesar(linea)\n{FENCE}\n",
    ),
    (
        "es",
        "en",
        "diff",
        _diff(
            "app/views.py",
            "    # Comprobamos que el usuario tenga permiso antes de mostrar la página\n"
            "    if not request.user.has_perm('app.view_report'):\n"
            "        return HttpResponseForbidden()",
        ),
    ),
    # Italian in English families
    ("it", "en", "short", "Sì, la pasta va scolata quando è ancora al dente."),
    ("it", "en", "short", "Ti consiglio di prenotare il museo almeno una settimana prima."),
    (
        "it",
        "en",
        "long",
        "Il Rinascimento nacque a Firenze nel Quattrocento grazie all'incontro tra ricchi mecenati, "
        "artisti e studiosi. Le famiglie come i Medici finanziavano pittori e architetti, mentre la "
        "riscoperta dei testi antichi cambiava il modo di pensare l'uomo e la natura.",
    ),
    (
        "it",
        "en",
        "comments",
        f"{FENCE}go\n// Controlla che la porta sia libera prima di avviare il server\n"
        "func avvia(porta int) error {\n\t// Se la porta è occupata restituiamo subito un errore\n"
        f"\treturn ascolta(porta)\n}}\n{FENCE}\n",
    ),
    # Portuguese in English families
    ("pt", "en", "short", "Sim, você pode trocar a bateria sem levar o carro à oficina."),
    ("pt", "en", "short", "O prazo para entregar a declaração termina no fim de maio."),
    (
        "pt",
        "en",
        "long",
        "Para cuidar de uma orquídea, regue apenas quando o substrato estiver quase seco e evite deixar "
        "água acumulada no vaso. Ela gosta de luz indireta, longe do sol forte da tarde. Depois que as "
        "flores caírem, corte a haste acima de um nó para estimular uma nova floração.",
    ),
    (
        "pt",
        "en",
        "comments",
        f'{FENCE}python\nclass Conta:\n    """Guarda o saldo e impede saques maiores do que o disponível."""\n\n'
        "    def sacar(self, valor):\n        # Não deixamos o saldo ficar negativo\n"
        f"        if valor > self.saldo:\n            raise ValueError(valor)\n        self.saldo -= valor\n{FENCE}\n",
    ),
    # Dutch in English families
    ("nl", "en", "short", "Ja, je kunt de fiets gewoon meenemen in de trein."),
    ("nl", "en", "short", "De vergadering is verplaatst naar donderdagmiddag om drie uur."),
    (
        "nl",
        "en",
        "long",
        "Een goede nachtrust begint al een paar uur voor het slapengaan. Drink na de middag geen koffie "
        "meer, leg je telefoon op tijd weg en zorg dat de slaapkamer koel en donker is. Wie elke dag op "
        "hetzelfde tijdstip opstaat, valt ook makkelijker in slaap.",
    ),
    (
        "nl",
        "en",
        "comments",
        f"{FENCE}python\n# Tel hoe vaak elk woord voorkomt in de tekst\ndef tel_woorden(tekst):\n"
        f"    # Hoofdletters maken voor ons geen verschil\n    return Counter(tekst.lower().split())\n{FENCE}\n",
    ),
    # Russian in English families
    ("ru", "en", "short", "Да, этот код можно ускорить, если убрать лишний цикл."),
    ("ru", "en", "short", "Поезд отправляется в восемь утра с центрального вокзала."),
    (
        "ru",
        "en",
        "long",
        "Чтобы вырастить рассаду томатов, посейте семена в конце марта в небольшие стаканчики с лёгкой "
        "землёй. Держите их в тёплом и светлом месте и поливайте умеренно. Когда появятся два настоящих "
        "листа, растения можно пересадить в отдельные горшки.",
    ),
    (
        "ru",
        "en",
        "comments",
        f"{FENCE}python\ndef загрузить(путь):\n    # Если файла нет, возвращаем пустой словарь\n"
        "    if not os.path.exists(путь):\n        return {}\n"
        f"    # Иначе читаем настройки из файла\n    with open(путь) as f:\n        return json.load(f)\n{FENCE}\n",
    ),
    (
        "ru",
        "en",
        "diff",
        _diff(
            "lib/parser.py",
            "        # Пропускаем пустые строки, чтобы не ломать нумерацию\n"
            "        if not line.strip():\n"
            "            continue",
        ),
    ),
    # Polish in English families
    ("pl", "en", "short", "Tak, możesz zapłacić kartą przy odbiorze paczki."),
    ("pl", "en", "short", "Najlepiej sadzić tulipany jesienią, zanim ziemia zamarznie."),
    (
        "pl",
        "en",
        "long",
        "Kraków był stolicą Polski aż do końca szesnastego wieku, kiedy dwór królewski przeniósł się "
        "do Warszawy. Do dziś w mieście zachowało się wiele zabytków, a Rynek Główny należy do "
        "największych średniowiecznych placów w Europie.",
    ),
    # Turkish in English families
    ("tr", "en", "short", "Evet, bu ilacı yemekten sonra almanız daha iyi olur."),
    ("tr", "en", "short", "Toplantı yarın sabah saat onda başlayacak."),
    (
        "tr",
        "en",
        "long",
        "İstanbul, Avrupa ile Asya arasında köprü olan eşsiz bir şehirdir. Boğaz'ın iki yakasında "
        "yüzyıllar boyunca farklı kültürler bir arada yaşamış ve şehrin mimarisine izlerini "
        "bırakmıştır. Akşamüstü vapurla karşıya geçmek, şehri tanımanın en güzel yollarından biridir.",
    ),
    (
        "tr",
        "en",
        "comments",
        f"{FENCE}python\n# Kullanıcının yaşını doğum yılından hesaplıyoruz\ndef yas(dogum_yili):\n"
        f"    # Bu yıl henüz doğum günü gelmediyse bir eksik olabilir\n    return date.today().year - dogum_yili\n{FENCE}\n",
    ),
    # Swedish in English families
    ("sv", "en", "short", "Ja, du kan ta med cykeln på tåget utan extra kostnad."),
    (
        "sv",
        "en",
        "long",
        "Midsommar firas i Sverige i slutet av juni, när dagarna är som längst. Man klär en midsommarstång "
        "med blommor och löv, dansar runt den och äter sill, färsk potatis och jordgubbar. Många åker ut "
        "på landet för att fira tillsammans med familj och vänner.",
    ),
    # Vietnamese in English families
    ("vi", "en", "short", "Bạn nên uống nhiều nước và nghỉ ngơi đầy đủ."),
    (
        "vi",
        "en",
        "long",
        "Phở là món ăn nổi tiếng nhất của Việt Nam, gồm bánh phở, nước dùng hầm từ xương bò và các loại "
        "rau thơm. Mỗi vùng có cách nấu riêng: phở Hà Nội thường thanh và ít gia vị, còn phở miền Nam "
        "hay ăn kèm giá đỗ và tương đen.",
    ),
    # Chinese in English families
    ("zh", "en", "short", "可以的，你只需要在设置里关闭自动更新。"),
    ("zh", "en", "short", "这家餐厅周一不营业，建议改天再去。"),
    (
        "zh",
        "en",
        "long",
        "快速排序的基本思想是先选一个基准元素，把比它小的放在左边，比它大的放在右边，然后对两边分别递归排序。"
        "平均情况下它的时间复杂度是 O(n log n)，但如果每次都选到最大或最小的元素，就会退化成 O(n²)。",
    ),
    (
        "zh",
        "en",
        "comments",
        f"{FENCE}python\ndef 去重(items):\n    # 用集合记录已经出现过的元素\n    seen = set()\n"
        "    result = []\n    for item in items:\n        # 只保留第一次出现的元素，保持原来的顺序\n"
        f"        if item not in seen:\n            seen.add(item)\n            result.append(item)\n    return result\n{FENCE}\n",
    ),
    (
        "zh",
        "en",
        "diff",
        _diff(
            "server/handler.go",
            "\t// 如果请求体为空，直接返回参数错误，避免后面解析时崩溃\n"
            "\tif len(body) == 0 {\n"
            "\t\treturn ErrBadRequest\n"
            "\t}",
        ),
    ),
    # Japanese in English families
    ("ja", "en", "short", "はい、その設定は後から変更できます。"),
    ("ja", "en", "short", "駅から徒歩五分のところにあります。"),
    (
        "ja",
        "en",
        "long",
        "味噌汁を作るときは、まず昆布と鰹節でだしを取ります。具材を入れて火が通ったら火を弱め、"
        "味噌を溶き入れます。味噌を入れた後は沸騰させないのが、香りを損なわないコツです。",
    ),
    (
        "ja",
        "en",
        "comments",
        f"{FENCE}python\n# 設定ファイルを読み込み、存在しない場合は既定値を返す\ndef load(path):\n"
        f"    # ファイルがなければ新しく作る必要はない\n    if not path.exists():\n        return DEFAULTS\n    return read(path)\n{FENCE}\n",
    ),
    # Korean in English families
    ("ko", "en", "short", "네, 그 기능은 설정 메뉴에서 끌 수 있습니다."),
    (
        "ko",
        "en",
        "long",
        "김치찌개를 맛있게 끓이려면 잘 익은 김치를 쓰는 것이 가장 중요합니다. 돼지고기를 먼저 볶다가 "
        "김치를 넣고 함께 볶은 뒤 물을 부어 충분히 끓이세요. 마지막에 두부와 파를 넣으면 완성입니다.",
    ),
    (
        "ko",
        "en",
        "comments",
        f"{FENCE}javascript\n// 입력값이 비어 있으면 기본값을 사용한다\nfunction 이름(value) {{\n"
        f"  // 앞뒤 공백을 제거한 뒤 비교한다\n  return value.trim() || '손님';\n}}\n{FENCE}\n",
    ),
    # English in other families
    ("en", "zh-Hans", "short", "Sure, you can turn that off in the settings menu."),
    (
        "en",
        "zh-Hans",
        "long",
        "The easiest way to keep basil alive is to give it plenty of sunlight and water it only when the "
        "top of the soil feels dry. Pinch off the flowers as soon as they appear, because the plant "
        "stops producing tasty leaves once it starts to bloom.",
    ),
    (
        "en",
        "zh-Hans",
        "comments",
        f"{FENCE}python\n# Split the work into chunks so that each worker gets a similar share\n"
        "def chunks(items, size):\n    # The last chunk may be shorter than the others\n"
        f"    return [items[i:i + size] for i in range(0, len(items), size)]\n{FENCE}\n",
    ),
    ("en", "ja", "short", "Yes, the museum is open until eight on Fridays."),
    (
        "en",
        "ja",
        "long",
        "To make a good cup of green tea, let the boiling water cool for a minute or two before pouring "
        "it over the leaves. Water that is too hot brings out the bitterness, and steeping for more "
        "than two minutes does the same.",
    ),
    (
        "en",
        "ja",
        "diff",
        _diff(
            "src/queue.rs",
            "    // Wake up one waiting consumer now that the queue is no longer empty\n"
            "    self.not_empty.notify_one();",
        ),
    ),
    ("en", "fr", "short", "You will need to renew your passport before the trip."),
    (
        "en",
        "de",
        "list",
        "Here are a few things to pack:\n\n- Warm socks and a rain jacket\n- A reusable water bottle\n"
        "- Snacks for the long train ride\n- A charger for your phone",
    ),
    ("en", "es", "short", "The store closes early on public holidays."),
    # German, French and Spanish in families of other languages
    ("de", "fr", "short", "Das Museum ist montags geschlossen, komm lieber am Dienstag."),
    (
        "fr",
        "de",
        "long",
        "Le chat dort toute la journée sur le rebord de la fenêtre et ne se réveille que lorsqu'il entend le bruit de sa gamelle. Le soir, il sort faire le tour du jardin avant de revenir gratter à la porte.",
    ),
    ("es", "pt", "short", "Mañana vamos a la playa si no llueve por la tarde."),
    ("ru", "zh-Hans", "short", "Да, эту функцию можно отключить в настройках."),
    ("ko", "ja", "short", "네, 내일 아침 아홉 시까지 도착하면 됩니다."),
]


RIGHT_HARD: list[tuple[str, str, str]] = [
    # English families: names, formulas, citations, arithmetic, code, tables, JSON
    ("en", "name", "Sriracha Tuna Avocado Wraps"),
    ("en", "name", "Coq au Vin with Rosemary Potatoes"),
    ("en", "formula", '=IF(OR(C7="U.S.A.", C7="Canada", C7="Europe"), TRUE, FALSE)'),
    ("en", "formula", '=SUMIFS(D2:D200, B2:B200, "Norte", C2:C200, ">="&F1)'),
    (
        "en",
        "citation",
        "Vaswani, Ashish, et al. “Attention Is All You Need.” arXiv, 2017, https://doi.org/10.48550/arXiv.1706.03762.",
    ),
    (
        "en",
        "citation",
        "Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2019). BERT: Pre-training of deep bidirectional transformers for language understanding. In Proceedings of NAACL-HLT (pp. 4171–4186).",
    ),
    (
        "en",
        "math",
        "Let's solve this step by step:\n3x + 10 = 5(x - 2)\n3x + 10 = 5x - 10\n2x = 20\nx = 10\n\nTherefore, the solution for x is 10.",
    ),
    ("en", "math", "f'(x) = 6x² − 4x + 1\nf'(2) = 24 − 8 + 1 = 17"),
    ("en", "json", '{"name": "Rosa", "city": "Bogotá", "languages": ["es", "en"], "active": true}'),
    (
        "en",
        "json",
        '[\n  {"producto": "Leche", "precio": 1.25},\n  {"producto": "Pan integral", "precio": 2.10}\n]',
    ),
    (
        "en",
        "table",
        "| Ville | Pays | Habitants |\n|---|---|---|\n| Lyon | France | 522 250 |\n| Genève | Suisse | 203 856 |",
    ),
    ("en", "sql", "SELECT nombre, ciudad FROM clientes WHERE pais = 'México' ORDER BY nombre;"),
    (
        "en",
        "identifiers",
        "Use `get_user_by_id()` or `UserRepository.findById` in `app.services.users`.",
    ),
    (
        "en",
        "url",
        "See https://de.wikipedia.org/wiki/Straßenbahn_Zürich and https://fr.wikipedia.org/wiki/Métro_de_Paris",
    ),
    (
        "en",
        "code",
        f"{FENCE}python\nwarm_start = kwargs.pop('warm_start', False)  # Added warm_start parameter\n{FENCE}",
    ),
    (
        "en",
        "diff",
        _diff(
            "django/db/backends/client.py",
            "        # Move parameters before dbname\n        args += parameters\n        args += [dbname]",
        ),
    ),
    (
        "en",
        "diff",
        _diff(
            "sklearn/ensemble/forest.py",
            "        # Added warm_start parameter\n        warm_start=False,\n        # Pass warm_start to super\n        super().__init__(warm_start=warm_start)",
        ),
    ),
    (
        "en",
        "diff",
        _diff(
            "sympy/core/mod.py",
            "            # Handle non-integer base case\n            if not q.is_integer:\n                return None",
        ),
    ),
    (
        "en",
        "diff",
        _diff(
            "flask/config.py",
            "    # Use mode parameter here\n    with open(filename, mode=mode) as f:",
        ),
    ),
    ("en", "exclamation", "Bravo! Magnifique!"),
    # Japanese families: JSON, lists, kanji-only, product names, code
    (
        "ja",
        "json",
        '[\n  {"review": "1", "date": "2019-11-18"},\n  {"review": "3", "date": "2022-02-01"}\n]',
    ),
    (
        "ja",
        "json",
        '{\n    "iPhone": 9.5,\n    "Samsung Galaxy": 8.5,\n    "Google Pixel": 8.8\n}\n\nはい、可能です。\n\niPhone\nSamsung Galaxy\nGoogle Pixel',
    ),
    ("ja", "kanji", "1. 文学\n2. 歴史\n3. 科学\n4. 芸術"),
    (
        "ja",
        "kanji",
        "1. 文学 - 三島由紀夫\n2. 歴史 - 戦国時代の武将\n3. 科学 - 水分子構造\n4. 芸術 - 浮世絵師",
    ),
    ("ja", "kanji", "東京都千代田区丸の内一丁目"),
    ("ja", "kanji", "日本国憲法第九条"),
    ("ja", "formula", '{"1": ["x", "y", "e", "pi", "sqrt"], "2": ["A", "B", "C", "N", "a"]}'),
    ("ja", "code", f"{FENCE}python\nimport os\nprint(os.listdir('.'))  # list files\n{FENCE}"),
    ("ja", "list", "[5, 1, 3]"),
    # Chinese families: SQL with Chinese names, numbers, English names
    ("zh-Hans", "sql", "SELECT 名称 FROM 汽车品牌 WHERE 品牌id = 3;"),
    ("zh-Hans", "names", "Python 3.12、NumPy 2.0 和 pandas 2.2"),
    ("zh-Hans", "number", "答案是 42。"),
    # Other families: short loan words and symbols
    ("fr", "name", "Le Big Mac"),
    ("de", "formula", "E = mc²"),
    ("es", "code", f"{FENCE}js\nconsole.log(total) // print total\n{FENCE}"),
]
