"""Han-script answers for telling Chinese from Japanese, written for this project.

``CHINESE``: answers a system might give in Chinese, 30 to 300 characters each,
Simplified and Traditional, prose and short interface strings, on several topics.
In a Japanese family each should fail the Language gate.

``KANJI_JAPANESE``: Japanese that is mostly or wholly kanji (headlines, addresses,
names, four-character idioms, lists of terms, titles of laws, timetables, menus).
In a Japanese family each should pass.

Each entry is ``(kind, text)``; the kinds keep the figures of docs/gates.md
("Chinese or Japanese") apart by what the text is.
"""

from __future__ import annotations

CHINESE: list[tuple[str, str]] = [
    # Simplified: short interface strings
    ("simplified-ui", "数据库连接失败，请检查网络设置后重试。如果问题仍然存在，请联系管理员。"),
    ("simplified-ui", "您的密码已过期，请在下次登录时设置新密码。新密码至少需要八位字符。"),
    ("simplified-ui", "文件上传成功，系统正在处理，请稍候几分钟再刷新页面查看结果。"),
    ("simplified-ui", "该用户名已被注册，请换一个用户名，或者直接登录您已有的账户。"),
    ("simplified-ui", "保存失败：磁盘空间不足。请删除一些不需要的文件，然后再试一次。"),
    ("simplified-ui", "确定要删除这条记录吗？删除以后数据将无法恢复，请您谨慎操作。"),
    ("simplified-ui", "验证码已经发送到您的手机，五分钟之内有效，请注意查收短信，谢谢。"),
    ("simplified-ui", "当前版本过低，部分功能暂时无法使用，请尽快更新到最新的版本。"),
    ("simplified-ui", "支付已经完成，您的订单将在二十四小时内发货，感谢您的购买和支持！"),
    ("simplified-ui", "网络连接超时，服务器没有响应。请稍后再试，或者联系系统管理员。"),
    ("simplified-ui", "您输入的邮箱地址格式不正确，请重新输入一个有效的电子邮箱地址。"),
    ("simplified-ui", "打印机处于离线状态，请确认电源已经打开，并且连接到同一网络。"),
    # Simplified: prose
    (
        "simplified-prose",
        "这个问题的原因是变量在使用之前没有初始化。你可以在函数开头给它一个默认值，"
        "这样就不会报错了。",
    ),
    (
        "simplified-prose",
        "番茄炒蛋的做法很简单：先把鸡蛋打散炒熟盛出，再炒番茄出汁，最后把鸡蛋倒回锅里，"
        "加一点盐和糖翻炒均匀就可以了。",
    ),
    (
        "simplified-prose",
        "去北京旅游最好避开国庆节，那时候景点人特别多。春天和秋天天气比较舒服，"
        "故宫、长城和颐和园都值得花时间好好看看。",
    ),
    (
        "simplified-prose",
        "每天保持七到八个小时的睡眠对身体很重要。睡前一个小时尽量不要看手机，"
        "可以读读书或者听听轻音乐，帮助大脑放松下来。",
    ),
    (
        "simplified-prose",
        "复利的意思是利息也会产生利息。比如你存一万元，年利率百分之五，十年后本息合计"
        "大约是一万六千多元，而不是一万五千元。",
    ),
    (
        "simplified-prose",
        "学习一门外语最重要的是坚持。每天花半个小时练习听力和口语，比周末突击几个小时"
        "效果要好得多。",
    ),
    (
        "simplified-prose",
        "我们建议您先备份重要数据，然后再升级操作系统。如果升级过程中出现问题，"
        "可以用备份把电脑恢复到原来的状态。",
    ),
    (
        "simplified-prose",
        "秦始皇统一六国以后，统一了文字、货币和度量衡，还修建了连接各地的道路，"
        "这些措施对后来的中国历史产生了深远的影响。",
    ),
    (
        "simplified-prose",
        "这场比赛主队一直落后，直到最后三分钟才连进两球反败为胜，现场的球迷都激动得站了起来。",
    ),
    (
        "simplified-prose",
        "光合作用是植物利用阳光，把二氧化碳和水转化成葡萄糖和氧气的过程。"
        "叶子里的叶绿素负责吸收光能。",
    ),
    (
        "simplified-prose",
        "面试的时候要提前十分钟到达，穿着整洁得体。回答问题时尽量举具体的例子，"
        "说明你是怎么解决问题的。",
    ),
    (
        "simplified-prose",
        "为什么天空是蓝色的？因为阳光进入大气层后，波长较短的蓝光更容易被空气分子散射，"
        "所以我们看到的天空是蓝色的。",
    ),
    (
        "simplified-prose",
        "如果你的猫突然不吃东西，而且精神不好，最好尽快带它去看兽医，不要自己随便给它吃药。",
    ),
    (
        "simplified-prose",
        "在Python里，列表是可变的，元组是不可变的。需要修改内容的时候用列表，"
        "需要作为字典的键的时候用元组。",
    ),
    (
        "simplified-prose",
        "这篇文章主要讲了气候变化对农业的影响：气温升高会让一些地区的粮食产量下降，"
        "但也可能让北方更适合种植。",
    ),
    (
        "simplified-prose",
        "首先打开设置，然后点击“账户与安全”，找到“修改密码”，输入旧密码和新密码，"
        "最后点击保存就完成了。",
    ),
    (
        "simplified-prose",
        "他们决定明年春天在上海开一家咖啡店，现在正在找合适的店面，也在学习怎么做手冲咖啡。",
    ),
    (
        "simplified-prose",
        "好的，我来帮你总结一下：会议定在周三下午两点，地点是三楼会议室，"
        "需要提前准备上个季度的销售报告。",
    ),
    (
        "simplified-prose",
        "这段代码的时间复杂度是O(n²)，因为有两层循环。可以先把数据放进哈希表，"
        "这样只需要遍历一次，复杂度就降到O(n)了。",
    ),
    (
        "simplified-prose",
        "没有什么比早上一杯热咖啡更能让人清醒的了。不过空腹喝咖啡对胃不好，最好先吃点东西。",
    ),
    (
        "simplified-prose",
        "根据你提供的信息，这台洗衣机的问题可能出在排水泵上。建议先清理过滤器，"
        "如果还是不行，就需要联系售后维修。",
    ),
    (
        "simplified-prose",
        "熊猫主要吃竹子，每天要花十几个小时进食。野生大熊猫主要生活在四川、陕西和甘肃的山区。",
    ),
    (
        "simplified-prose",
        "股票和基金都有风险。刚开始投资的人可以先从指数基金开始，每个月定投一小部分工资，"
        "长期坚持，不要追涨杀跌。",
    ),
    (
        "simplified-prose",
        "孩子不爱写作业，家长不要一味批评。可以和孩子一起制定计划，把大任务分成小任务，"
        "完成以后给一些鼓励。",
    ),
    (
        "simplified-prose",
        "总的来说，这款手机的拍照效果不错，电池也很耐用，但是价格偏高，性价比不如去年的型号。",
    ),
    (
        "simplified-prose",
        "长江是中国最长的河流，全长约六千三百公里，流经青海、西藏、四川、湖北、"
        "江苏等十一个省级行政区，最后流入东海。",
    ),
    # Traditional: short interface strings
    (
        "traditional-ui",
        "資料庫連線失敗，請檢查網路設定後再試一次。如果問題仍然存在，請聯絡管理員。",
    ),
    ("traditional-ui", "您的密碼已過期，請在下次登入時設定新的密碼，至少需要八個字元。"),
    ("traditional-ui", "確定要刪除這筆資料嗎？刪除以後資料將無法復原，請您謹慎操作。"),
    ("traditional-ui", "檔案上傳成功，系統正在處理中，請稍候幾分鐘再重新整理這個頁面。"),
    ("traditional-ui", "驗證碼已經傳送到您的手機，請在五分鐘內輸入，逾時需要重新申請。"),
    ("traditional-ui", "目前的版本過舊，部分功能暫時無法使用，請盡快更新至最新版本。"),
    ("traditional-ui", "付款已經完成，您的訂單將於二十四小時內出貨，感謝您的購買與支持！"),
    ("traditional-ui", "印表機目前處於離線狀態，請確認電源已開啟，並連接到同一個網路。"),
    ("traditional-ui", "這個使用者名稱已經有人註冊了，請換一個名稱，或直接登入您的帳號。"),
    ("traditional-ui", "儲存失敗：磁碟空間不足，請刪除一些不需要的檔案，然後再試一次。"),
    # Traditional: prose
    (
        "traditional-prose",
        "這個問題的原因是變數在使用之前沒有初始化。你可以在函式開頭給它一個預設值，"
        "這樣就不會出錯了。",
    ),
    (
        "traditional-prose",
        "台北的夜市很有名，士林夜市和饒河街夜市都值得一去。記得嘗嘗蚵仔煎、大腸包小腸和珍珠奶茶。",
    ),
    (
        "traditional-prose",
        "每天保持七到八個小時的睡眠對身體很重要。睡前盡量不要滑手機，可以看看書，"
        "讓大腦慢慢放鬆下來。",
    ),
    (
        "traditional-prose",
        "我們建議您先備份重要的資料，再升級作業系統。如果升級過程中發生問題，"
        "可以用備份把電腦還原。",
    ),
    (
        "traditional-prose",
        "為什麼天空是藍色的？因為陽光進入大氣層以後，波長較短的藍光比較容易被空氣分子散射。",
    ),
    (
        "traditional-prose",
        "學習外語最重要的是持之以恆。每天花半個小時練習聽力和口說，比週末一次念好幾個小時"
        "有效得多。",
    ),
    (
        "traditional-prose",
        "滷肉飯的做法：把五花肉切丁，用醬油、冰糖和米酒慢慢滷一個小時，最後淋在白飯上就完成了。",
    ),
    (
        "traditional-prose",
        "這場比賽主隊一直落後，直到最後三分鐘才連進兩球逆轉勝，現場的球迷都激動得站了起來。",
    ),
    (
        "traditional-prose",
        "如果你的貓突然不吃東西，而且沒什麼精神，最好盡快帶牠去看獸醫，不要自己隨便餵藥。",
    ),
    (
        "traditional-prose",
        "總而言之，這支手機的拍照效果不錯，電池也很耐用，但是價格偏高，CP值不如去年的機型。",
    ),
    (
        "traditional-prose",
        "好的，我幫你整理一下：會議訂在星期三下午兩點，地點是三樓會議室，"
        "請先準備上一季的銷售報告。",
    ),
    (
        "traditional-prose",
        "在Python裡，串列是可變的，元組是不可變的。需要修改內容時用串列，"
        "需要當作字典的鍵時用元組。",
    ),
]

KANJI_JAPANESE: list[tuple[str, str]] = [
    # Headlines and notices
    ("headline", "東京株式市場、日経平均株価三日続落"),
    ("headline", "首相官邸で臨時閣議、補正予算案を決定"),
    ("headline", "大雨特別警報発表、九州北部で土砂災害警戒"),
    ("headline", "全国高校野球選手権大会、決勝戦は明日午後一時開始"),
    ("headline", "新型半導体工場建設計画、熊本県で着工式典"),
    ("headline", "本日臨時休業\n設備点検実施中\n明日通常営業再開予定"),
    ("headline", "関係者以外立入禁止\n作業中危険\n安全第一"),
    ("headline", "年末年始休業期間：十二月二十九日～一月三日"),
    # Addresses and names
    ("address", "東京都千代田区丸の内一丁目九番一号"),
    ("address", "〒530-0001 大阪府大阪市北区梅田三丁目一番三号 大阪駅前第一ビル"),
    ("address", "北海道札幌市中央区北一条西二丁目\n札幌市役所本庁舎"),
    ("names", "1. 夏目漱石\n2. 芥川龍之介\n3. 太宰治\n4. 川端康成\n5. 三島由紀夫"),
    ("names", "出席者：田中太郎、佐藤花子、鈴木一郎、高橋健二、渡辺美咲"),
    ("names", "徳川家康、豊臣秀吉、織田信長、武田信玄、上杉謙信"),
    ("names", "株式会社日立製作所、三菱重工業株式会社、東日本旅客鉄道株式会社"),
    ("names", "齋藤隆、澤田健一、渡邊真理子、髙橋直樹（敬称略）"),
    # Four-character idioms and terms
    ("idioms", "一石二鳥、温故知新、以心伝心、起承転結、一期一会、自業自得"),
    ("idioms", "四字熟語：臨機応変、試行錯誤、切磋琢磨、有言実行、弱肉強食"),
    ("terms", "1. 文学\n2. 歴史\n3. 科学\n4. 芸術\n5. 音楽\n6. 建築"),
    ("terms", "主要科目：国語、数学、英語、理科、社会、情報"),
    ("terms", "必要書類：住民票、印鑑証明書、身分証明書、健康保険証"),
    ("terms", "機械学習、深層学習、自然言語処理、画像認識、強化学習、生成系人工知能"),
    ("terms", "原材料名：小麦粉、砂糖、植物油脂、鶏卵、食塩、膨張剤"),
    ("terms", "営業時間 午前十時～午後八時\n定休日 毎週水曜日\n駐車場 二十台"),
    # Laws, titles, schedules, menus
    ("titles", "日本国憲法第九条\n民法第七百九条\n刑法第百九十九条"),
    ("titles", "個人情報の保護に関する法律施行令第一条"),
    ("titles", "第一章 総則\n第二章 基本計画\n第三章 実施体制\n第四章 雑則"),
    ("schedule", "第一部 開会式 午前九時\n第二部 基調講演 午前十時\n第三部 分科会 午後一時"),
    ("menu", "本日定食：焼魚定食、生姜焼定食、唐揚定食、天丼、親子丼"),
    ("menu", "和風御膳\n刺身盛合\n茶碗蒸\n季節野菜天麩羅\n味噌汁\n香物"),
    # Kanji-heavy sentences with a little kana
    ("formal", "本件に関し、関係各位の御理解と御協力を賜りたく、何卒宜しく御願い申し上げます。"),
    ("formal", "令和六年度予算案は一般会計総額百十二兆円規模となる見通し。"),
    ("formal", "当社は環境保全活動推進の一環として、全事業所で再生可能エネルギー導入を開始。"),
    ("formal", "本製品は精密機器の為、高温多湿及び直射日光を避けて保管して下さい。"),
]
