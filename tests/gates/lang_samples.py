# ruff: noqa: E501  (sentences read better unbroken than split to fit a line)
"""A labelled set for language identification, written for Arena's tests.

Each sample is (label, kind, text): label is the language a reader would
name, kind is short (one sentence), long (a paragraph) or mixed (prose with a
code block whose comments share the prose's language). Used by the Language
gate's tests and by ``benchmarks/gates_bench.py --compare``.
"""

from __future__ import annotations

FENCE = "```"


def _mixed(prose: str, comment: str, after: str) -> str:
    return (
        f"{prose}\n\n{FENCE}python\n# {comment}\ndef total(items):\n"
        f"    return sum(item.price for item in items)\n{FENCE}\n\n{after}\n"
    )


SAMPLES: list[tuple[str, str, str]] = [
    # English
    ("en", "short", "The meeting moved to Thursday afternoon."),
    ("en", "short", "Yes, you can freeze the soup for up to three months."),
    (
        "en",
        "long",
        "A binary search halves the range it looks at on every step, so a sorted list of a million "
        "entries needs about twenty comparisons. The catch is that the list must stay sorted: inserting "
        "in the middle costs time proportional to its length, which is why databases prefer trees.",
    ),
    (
        "en",
        "long",
        "Before you repaint a bathroom ceiling, wash off any mould with a diluted bleach solution and "
        "let it dry for a full day. Use a primer that blocks stains, then two thin coats of a paint "
        "made for damp rooms rather than one thick coat.",
    ),
    (
        "en",
        "mixed",
        _mixed(
            "Here is a small helper that adds up the prices in a basket.",
            "Add up every price in the basket",
            "Call it with any list of objects that have a price attribute.",
        ),
    ),
    (
        "en",
        "mixed",
        _mixed(
            "You can compute the order total with a generator expression.",
            "Sum the prices without building a list first",
            "This avoids creating an intermediate list in memory.",
        ),
    ),
    # Simplified Chinese
    ("zh", "short", "会议改到星期四下午了。"),
    ("zh", "short", "这道汤可以冷冻保存三个月。"),
    (
        "zh",
        "long",
        "二分查找每一步都把搜索范围缩小一半，所以在一百万个有序元素里查找大约只需要二十次比较。"
        "不过前提是列表必须保持有序：在中间插入一个元素的代价和列表长度成正比，这也是数据库更喜欢用树结构的原因。",
    ),
    (
        "zh",
        "long",
        "重新粉刷浴室天花板之前，先用稀释的漂白水把霉斑擦掉，然后让它干燥一整天。"
        "先涂一层能遮盖污渍的底漆，再刷两薄层适合潮湿房间的涂料，不要一次刷得太厚。",
    ),
    (
        "zh",
        "mixed",
        _mixed(
            "下面是一个把购物篮里所有商品价格加起来的小函数。",
            "把购物篮里每件商品的价格加起来",
            "只要传入带有价格属性的对象列表就可以调用它。",
        ),
    ),
    (
        "zh",
        "mixed",
        _mixed(
            "可以用生成器表达式来计算订单总额。",
            "不先建立列表，直接对价格求和",
            "这样可以避免在内存里创建一个中间列表。",
        ),
    ),
    # Traditional Chinese (still the language zh)
    ("zh", "short", "會議改到星期四下午了。"),
    (
        "zh",
        "long",
        "重新粉刷浴室天花板之前，先用稀釋的漂白水把黴斑擦掉，然後讓它乾燥一整天。"
        "先塗一層能遮蓋污漬的底漆，再刷兩薄層適合潮濕房間的塗料，不要一次刷得太厚。",
    ),
    (
        "zh",
        "mixed",
        _mixed(
            "下面是一個把購物籃裡所有商品價格加起來的小函數。",
            "把購物籃裡每件商品的價格加起來",
            "只要傳入帶有價格屬性的物件列表就可以呼叫它。",
        ),
    ),
    # Japanese
    ("ja", "short", "会議は木曜日の午後に変更になりました。"),
    ("ja", "short", "このスープは三か月まで冷凍できます。"),
    (
        "ja",
        "long",
        "二分探索は一歩ごとに探す範囲を半分にするので、百万件の整列済みリストでも比較は二十回ほどで済みます。"
        "ただしリストは常に整列している必要があり、途中への挿入には長さに比例した時間がかかります。",
    ),
    (
        "ja",
        "long",
        "浴室の天井を塗り直す前に、薄めた漂白剤でカビを落とし、丸一日乾かしてください。"
        "しみを防ぐ下塗りをしてから、湿気の多い部屋向けの塗料を薄く二回塗るのがこつです。",
    ),
    (
        "ja",
        "mixed",
        _mixed(
            "買い物かごの商品の価格を合計する小さな関数です。",
            "かごの中のすべての価格を足し合わせる",
            "価格の属性を持つオブジェクトのリストを渡して呼び出します。",
        ),
    ),
    (
        "ja",
        "mixed",
        _mixed(
            "ジェネレーター式を使うと注文の合計を計算できます。",
            "リストを作らずに価格を合計する",
            "これで中間のリストをメモリに作らずに済みます。",
        ),
    ),
    # Korean
    ("ko", "short", "회의가 목요일 오후로 옮겨졌습니다."),
    ("ko", "short", "이 수프는 석 달까지 냉동 보관할 수 있어요."),
    (
        "ko",
        "long",
        "이진 탐색은 단계마다 찾는 범위를 절반으로 줄이기 때문에 정렬된 백만 개의 항목에서도 "
        "비교가 스무 번 정도면 충분합니다. 다만 목록이 항상 정렬되어 있어야 하고, 중간에 삽입하려면 "
        "길이에 비례하는 시간이 걸립니다.",
    ),
    (
        "ko",
        "long",
        "욕실 천장을 다시 칠하기 전에 희석한 표백제로 곰팡이를 닦아 내고 하루 동안 말리세요. "
        "얼룩을 막는 프라이머를 바른 다음 습기가 많은 방에 맞는 페인트를 얇게 두 번 칠하는 것이 좋습니다.",
    ),
    (
        "ko",
        "mixed",
        _mixed(
            "장바구니에 담긴 상품 가격을 모두 더하는 작은 함수입니다.",
            "장바구니의 모든 가격을 더한다",
            "가격 속성이 있는 객체 목록을 넘겨서 호출하면 됩니다.",
        ),
    ),
    # French
    ("fr", "short", "La réunion a été déplacée à jeudi après-midi."),
    ("fr", "short", "Oui, vous pouvez congeler la soupe pendant trois mois."),
    (
        "fr",
        "long",
        "Une recherche dichotomique divise par deux la plage examinée à chaque étape : une liste triée "
        "d'un million d'éléments demande donc une vingtaine de comparaisons. Encore faut-il que la liste "
        "reste triée, car une insertion au milieu coûte un temps proportionnel à sa longueur.",
    ),
    (
        "fr",
        "mixed",
        _mixed(
            "Voici une petite fonction qui additionne les prix du panier.",
            "Additionner tous les prix du panier",
            "Appelez-la avec une liste d'objets qui possèdent un attribut de prix.",
        ),
    ),
    # German
    ("de", "short", "Die Besprechung wurde auf Donnerstagnachmittag verschoben."),
    ("de", "short", "Ja, die Suppe lässt sich bis zu drei Monate einfrieren."),
    (
        "de",
        "long",
        "Bevor Sie eine Badezimmerdecke neu streichen, waschen Sie den Schimmel mit verdünnter "
        "Bleichlauge ab und lassen alles einen ganzen Tag trocknen. Danach kommt eine sperrende Grundierung "
        "und zwei dünne Schichten einer Farbe für Feuchträume.",
    ),
    (
        "de",
        "mixed",
        _mixed(
            "Hier ist eine kleine Funktion, die alle Preise im Warenkorb addiert.",
            "Alle Preise im Warenkorb zusammenzählen",
            "Rufen Sie sie mit einer Liste von Objekten auf, die einen Preis haben.",
        ),
    ),
    # Spanish
    ("es", "short", "La reunión se cambió al jueves por la tarde."),
    ("es", "short", "Sí, puedes congelar la sopa hasta tres meses."),
    (
        "es",
        "long",
        "Antes de volver a pintar el techo del baño, limpia el moho con lejía diluida y deja que se "
        "seque durante un día entero. Aplica una imprimación que bloquee las manchas y después dos capas "
        "finas de una pintura pensada para habitaciones húmedas.",
    ),
    (
        "es",
        "mixed",
        _mixed(
            "Aquí tienes una pequeña función que suma los precios de la cesta.",
            "Sumar todos los precios de la cesta",
            "Llámala con una lista de objetos que tengan un atributo de precio.",
        ),
    ),
    # Russian
    ("ru", "short", "Совещание перенесли на вечер четверга."),
    ("ru", "short", "Да, суп можно заморозить на три месяца."),
    (
        "ru",
        "long",
        "Двоичный поиск на каждом шаге сокращает диапазон вдвое, поэтому в отсортированном списке из "
        "миллиона элементов нужно около двадцати сравнений. Но список должен оставаться отсортированным, "
        "а вставка в середину занимает время, пропорциональное его длине.",
    ),
    (
        "ru",
        "mixed",
        _mixed(
            "Вот небольшая функция, которая складывает цены товаров в корзине.",
            "Сложить все цены в корзине",
            "Вызывайте её со списком объектов, у которых есть атрибут цены.",
        ),
    ),
    # Portuguese
    ("pt", "short", "A reunião foi remarcada para quinta-feira à tarde."),
    ("pt", "short", "Sim, você pode congelar a sopa por até três meses."),
    (
        "pt",
        "long",
        "Antes de pintar de novo o teto do banheiro, limpe o mofo com água sanitária diluída e deixe "
        "secar por um dia inteiro. Passe um primer que bloqueie manchas e depois duas demãos finas de uma "
        "tinta própria para ambientes úmidos.",
    ),
    (
        "pt",
        "mixed",
        _mixed(
            "Aqui está uma pequena função que soma os preços do carrinho.",
            "Somar todos os preços do carrinho",
            "Chame-a com uma lista de objetos que tenham um atributo de preço.",
        ),
    ),
    # Prose in one language, comments in another: the prose outweighs the comments.
    (
        "en",
        "mixed",
        _mixed(
            "The function below totals the basket; the original author left "
            "the comments in Chinese, which is fine for this team.",
            "把购物篮里每件商品的价格加起来",
            "Pass it any iterable of objects with a price attribute.",
        ),
    ),
    (
        "zh",
        "mixed",
        _mixed(
            "下面这个函数计算购物篮的总价。注释保留了英文，因为团队里还有不会中文的同事，"
            "所以代码注释统一用英文书写。",
            "Add up every price in the basket",
            "调用时传入任何带有价格属性的对象即可。",
        ),
    ),
]
