// The message catalogue: every text the page shows, in English (the message ids themselves) and Japanese.
// `t(id, vars)` gives the text in the page's language (LANG: the switch's choice kept on the device, else the
// browser's first language we have, else English), `{name}` placeholders filled from `vars`. An id missing
// from a language falls back to English. `fromServer(text)` maps the server's known refusals (English) to
// catalogue entries; anything else is shown as the server sent it. `translatePage()` puts the static page
// (index.html: text, aria-label, placeholder, title) through the catalogue once on load.
"use strict";

const CATALOGUE = {
  ja: {
    "Yacht": "ヨット",
    "Yacht tables": "ヨットのテーブル",
    "Language": "言語",
    "Open tables with a free seat": "空席のあるテーブル",
    "Today's deal": "今日のディール",
    "One deal a day: everyone plays the same dice alone, under the rules chosen below, and is ranked by the points lost against the best play, so luck is out of it.": "1日1ディール：全員が同じサイコロで1人でプレイし（ルールは下で選んだもの）、最善手と比べて失った点数で順位がつくので、運に左右されません。",
    "Play today's deal": "今日のディールをプレイ",
    "Today's ranking": "今日のランキング",
    "Open a table": "テーブルを開く",
    "Rules": "ルール",
    "Extra Yacht bonus (+100 for each further Yacht, and the joker rule)": "追加ヨットボーナス（2回目以降のヨットごとに +100、ジョーカールールあり）",
    "Joker rule": "ジョーカールール",
    "as the rules say (forced)": "ルールどおり（強制）",
    "free choice of box": "役を自由に選べる",
    "Rolls a turn": "1ターンの振る回数",
    "as the rules say (3)": "ルールどおり（3）",
    "Unused rolls saved for later turns": "使わなかった回数を後のターンに持ち越す",
    "as the rules say (none)": "ルールどおり（なし）",
    "up to 1": "1回まで",
    "up to 2": "2回まで",
    "up to 3": "3回まで",
    "no limit": "上限なし",
    "More rules": "その他のルール",
    "Rule knobs, one KEY=VALUE a line, as yacht play --set takes them": "ルール設定：1行に1つ KEY=VALUE（yacht play --set と同じ形式）",
    "Seats": "席",
    "+ Person": "+ 人",
    "+ CPU": "+ CPU",
    "A person seat with a name plays on this device (pass and play); leave a name empty to fill the seat with the invite link.": "名前のある人の席はこの端末でプレイします（交代でプレイ）。名前を空にすると招待リンクで席を埋められます。",
    "Teams": "チーム",
    "everyone on their own": "全員個人戦",
    "2 teams": "2チーム",
    "3 teams": "3チーム",
    "4 teams": "4チーム",
    "seat 1 plays with seat 1 + teams, and so on": "席1は席「1 + チーム数」と組みます（以下同様）",
    "CPU pace": "CPUの速さ",
    "Fast": "速い",
    "Normal": "ふつう",
    "Slow": "ゆっくり",
    "If a person leaves": "人が退席したら",
    "wait for them": "戻るのを待つ",
    "a CPU takes over after 30 s": "30秒後にCPUが代わる",
    "a CPU takes over after 2 min": "2分後にCPUが代わる",
    "List the table here while a seat is free, so anyone may join": "空席がある間はここにテーブルを載せ、誰でも参加できるようにする",
    "Open the table": "テーブルを開く",
    "Tournaments": "トーナメント",
    "Take a seat": "席に着く",
    "Your name": "あなたの名前",
    "Sit down": "座る",
    "Just watch": "観戦する",
    "Yacht table": "ヨットのテーブル",
    "Connecting…": "接続中…",
    "Invite link": "招待リンク",
    "View link": "観戦リンク",
    "Start now, the free seats played by": "今すぐ開始、空席は次がプレイ：",
    "Start now": "今すぐ開始",
    "Back to the lobby": "ロビーに戻る",
    "dice": "サイコロ",
    "Roll": "振る",
    "Score": "記入",
    "Undo": "取り消し",
    "Play on": "続ける",
    "Rematch": "再戦",
    "Analysis board": "分析ボード",
    "Swipe the sheet sideways to see every player.": "シートを横にスワイプすると全員が見られます。",
    "score sheet": "スコアシート",
    "reactions": "リアクション",
    "reactions at the table": "テーブルのリアクション",
    "A sound when it is my turn": "自分の番で音を鳴らす",
    "Keys: a die's number (1 is the leftmost) holds it, R rolls, a box then Enter scores, U undoes.": "キー：サイコロの番号（左端が 1）でキープ、R で振る、役を選んで Enter で記入、U で取り消し。",
    "accuracy per player": "プレイヤーごとの精度",
    "Level": "レベル",
    "Check the dice": "サイコロを検証",
    "start of the game": "ゲームの最初へ",
    "one move back": "1手戻る",
    "one move on": "1手進む",
    "end of the game": "ゲームの最後へ",
    "Moves": "手順",
    "Everyone here played the same dice. The ranking is by points lost: what each player's decisions cost on average against the best play (Strong) on those dice; the total is shown beside it.": "ここにいる全員が同じサイコロでプレイしました。順位は失点順です：同じサイコロでの最善手（強い）と比べて各プレイヤーの判断が平均で失った点数。合計点も並べて表示します。",
    "ranking": "ランキング",
    "Tournament": "トーナメント",
    "Standings": "順位表",
    "standings": "順位表",
    "Games": "ゲーム",
    "pages of games": "ゲームのページ",
    "Earlier games": "前のゲーム",
    "Later games": "後のゲーム",
    "pages of standings": "順位表のページ",
    "Higher places": "上の順位",
    "Lower places": "下の順位",

    "Player 1": "プレイヤー1",
    "free seat": "空席",
    "Join": "参加",
    "join the {rules} table: {who}": "{rules} のテーブルに参加：{who}",
    "name (empty: invite someone)": "名前（空欄：誰かを招待）",
    "person's name": "人の名前",
    "Person": "人",
    "CPU": "CPU",
    "CPU level": "CPUのレベル",
    "Strength dial": "強さダイヤル",
    "A CPU at your level ({s})": "あなたのレベルのCPU（{s}）",
    "strength": "強さ",
    "remove seat": "席を削除",
    "Connection lost: reconnecting…": "接続が切れました：再接続中…",
    "Not connected, so that did not reach the table: reconnecting…": "接続されていないため、テーブルに届きませんでした：再接続中…",
    "Connected again: play on.": "再接続しました：続けてください。",
    "{name} asks for a rematch": "{name} さんが再戦を希望しています",
    "Every seat was taken before you arrived: you are watching this table.": "到着前に全席が埋まりました：このテーブルを観戦中です。",
    "This table is not here": "このテーブルはありません",
    "{why}: the link may be old, or the table was closed.": "{why}：リンクが古いか、テーブルが閉じられました。",
    "(free seat)": "（空席）",
    "Game over": "ゲーム終了",
    "Waiting for someone to take the free seat": "空席に誰かが座るのを待っています",
    "{name}'s turn": "{name} さんの番",
    "{name}'s turn (pass the device)": "{name} さんの番（端末を渡してください）",
    "Your turn": "あなたの番",
    "the deal of {day}": "{day} のディール",
    "game {n}": "第{n}ゲーム",
    "Yacht table: {rules}, game {n}": "ヨットのテーブル：{rules}、第{n}ゲーム",
    "You are watching this table.": "このテーブルを観戦中です。",
    "Roll ({n} left)": "振る（残り{n}回）",
    "Rolls left {n} ({saved} saved)": "残り{n}回（うち持ち越し{saved}回）",
    "Rolls left {n}": "残り{n}回",
    "{n} saved": "持ち越し{n}回",
    "Score {box} ({points})": "{box} に記入（{points}点）",
    "{name} is getting ready (the first game under these rules can take a while)": "{name} が準備中です（このルールでの最初のゲームは時間がかかることがあります）",
    "The dice came from seed {seed}; its hash {hash} was shown before the first roll. The analysis board checks every roll against it.": "サイコロはシード {seed} から出ました。そのハッシュ {hash} は最初の一振りの前に表示されていました。分析ボードで全ての出目を照合できます。",
    "The dice of this game are fixed before the first roll: hash {hash} (the seed is shown at the end).": "このゲームのサイコロは最初の一振りの前に決まっています：ハッシュ {hash}（シードは最後に表示されます）。",
    "Your turn · Yacht": "あなたの番 · ヨット",
    "Game over · Yacht": "ゲーム終了 · ヨット",
    "die {n}: not rolled yet": "サイコロ{n}：まだ振っていません",
    "Held": "キープ",
    "die {n}: {face}": "サイコロ{n}：{face}",
    "die {n}: {face}, does not count": "サイコロ{n}：{face}、数えない",
    "You are holding every die: you are ready to score. Pick a box.": "サイコロを全部キープしています：記入の準備ができました。役を選んでください。",
    "then": "次に",
    "Roll-off: {rolls}; {name} starts": "先攻決め：{rolls}。{name} さんから開始",
    "{name} rolled {dice}": "{name} さんが {dice} を出しました",
    "{name} rolls {dice}": "{name} さんが {dice} を出す",
    "{name} scored {points} in {box}": "{name} さんが {box} に {points}点",
    "{name} scored {points} in {box} (+{bonus} bonus)": "{name} さんが {box} に {points}点（ボーナス +{bonus}）",
    "(CPU playing)": "（CPUがプレイ中）",
    "(away)": "（離席中）",
    "(you)": "（あなた）",
    "Box": "役",
    "{box}: score {points}": "{box}：{points}点",
    "{box}: score {points}, picked": "{box}：{points}点、選択中",
    "You scored {total}": "あなたの得点は {total}",
    "A shared win for everyone": "全員の引き分け勝ち",
    "Shared win: {names}": "同点勝利：{names}",
    " and ": "と",
    "{name} wins": "{name} さんの勝ち",
    "(roll-off {rolls})": "（決着の振り直し {rolls}）",
    "Rematch: waiting for {names}": "再戦：{names} を待っています",
    "the others": "ほかの人",
    "Accept {names}'s rematch": "{names} さんの再戦を受ける",
    "A CPU played part of this game for you, so it does not count as a best score.": "このゲームの一部をCPUが代わりにプレイしたため、ベストスコアには数えません。",
    "New best on this device under {rules}! (was {was})": "この端末での {rules} の新記録！（これまで {was}）",
    "Best on this device under {rules}: {best}": "この端末での {rules} のベスト：{best}",
    "{name}'s best on this server: {best}": "このサーバーでの {name} さんのベスト：{best}",
    "{what} copied: {text}": "{what} をコピーしました：{text}",
    "keep {dice} and roll again": "{dice} を残して振り直す",
    "roll all the dice again": "サイコロを全部振り直す",
    "score {box}": "{box} に記入",
    "Analysing…": "分析中…",
    "The analysis could not be loaded.": "分析を読み込めませんでした。",
    "analysis": "分析",
    "Analysis board: {names}": "分析ボード：{names}",
    "Every decision is checked against the exact solver. Accuracy is the share of the best expected score a player kept; points lost add up what each decision cost on average. ?! marks an inaccuracy (0.5 to 2 expected points lost), ? a mistake (2 to 5), ?? a blunder (5 or more). Pick a move to see the position it was made in.": "すべての判断を厳密なソルバーで確認します。精度は最善の期待得点のうち保てた割合、失点は各判断で平均して失った点数の合計です。?! は不正確（期待値で 0.5〜2 点の損）、? は悪手（2〜5 点）、?? は大悪手（5 点以上）。手を選ぶとその時の局面が表示されます。",
    "best: {move} (−{loss})": "最善：{move}（−{loss}）",
    "best was to {best}, expected final score {value} against {played} ({loss} points lost).": "最善は「{best}」で、期待最終得点は {value}（選んだ手は {played}、{loss} 点の損）。",
    "the best move (expected final score {value}).": "最善手（期待最終得点 {value}）。",
    "{name} to play, {n} roll left: chose to {move}; {verdict}": "{name} さんの番、残り{n}回：「{move}」を選択。{verdict}",
    "{name} to play, {n} rolls left: chose to {move}; {verdict}": "{name} さんの番、残り{n}回：「{move}」を選択。{verdict}",
    "Start of the game": "ゲームの最初",
    "below {level}": "{level}より下",
    "as {level} plays": "{level}と同じ",
    "between {low} and {high}": "{low}と{high}の間",
    "strength {s} (likely {low} to {high}), {where}": "強さ {s}（おそらく {low}〜{high}）、{where}",
    "{name} played like {level}.": "{name} さんのプレイは {level}。",
    "The strength dial runs from 0 (random-like) to 1 (the best play); the CPU levels sit at {scale}. The strength is the dial setting that loses as many expected points per decision as this game did ({loss} over {n} decisions); the range is where 95% of games of that length would place it, so one game is a rough guide and several narrow it.": "強さダイヤルは 0（ほぼでたらめ）から 1（最善のプレイ）まで。CPUのレベルは {scale} です。強さは、1判断あたりの期待失点がこのゲーム（{n} 回の判断で平均 {loss}）と同じになるダイヤルの値です。範囲は同じ長さのゲームの 95% が収まる所なので、1ゲームでは目安で、ゲームを重ねると絞られます。",
    "Checking…": "検証中…",
    "The dice do not match: {problem}.": "サイコロが一致しません：{problem}。",
    "Every roll matches seed {seed}, whose hash {hash}… was shown before the first roll.": "全ての出目がシード {seed} と一致します。そのハッシュ {hash}… は最初の一振りの前に表示されていました。",
    "The check could not be loaded.": "検証を読み込めませんでした。",
    "Table {table}, deal {deal}, seating {seating}": "テーブル{table}、ディール{deal}、席順{seating}",
    "Deal {deal}, seating {seating}": "ディール{deal}、席順{seating}",
    "The tournament could not be loaded.": "トーナメントを読み込めませんでした。",
    "tournament": "トーナメント",
    "{played} of {planned} games played": "{planned} ゲーム中 {played} ゲーム終了",
    "Page {page} of {pages}": "{pages} ページ中 {page} ページ目",
    "Places {first} to {last} of {count}": "{count} 人中 {first}〜{last} 位",
    "The ranking could not be loaded.": "ランキングを読み込めませんでした。",
    "The deal of {day} ({rules})": "{day} のディール（{rules}）",

    // names the page builds from data: boxes, sheet rows, column heads, marks, levels, CPU labels, reactions
    "Ones": "1の目", "Twos": "2の目", "Threes": "3の目", "Fours": "4の目", "Fives": "5の目", "Sixes": "6の目",
    "Three of a kind": "スリーカード", "Four of a kind": "フォーカード", "Full house": "フルハウス",
    "Small straight": "S.ストレート", "Large straight": "B.ストレート", "Little straight": "S.ストレート",
    "Big straight": "B.ストレート", "Straight": "ストレート", "Chance": "チャンス", "Choice": "チョイス",
    "One pair": "ワンペア", "Two pairs": "ツーペア", "Yatzy": "ヤッツィー",
    "Upper": "上段", "Upper bonus": "上段ボーナス", "Extra Yachts": "追加ヨット", "Total": "合計",
    "Player": "プレイヤー", "Accuracy": "精度", "Points lost": "失点", "Inaccuracies ?!": "不正確 ?!",
    "Mistakes ?": "悪手 ?", "Blunders ??": "大悪手 ??", "Wins": "勝ち", "Draws": "引き分け", "Losses": "負け",
    "Score rate": "得点率", "Mean": "平均",
    "an inaccuracy": "不正確", "a mistake": "悪手", "a blunder": "大悪手",
    "Easy": "やさしい", "Strong": "強い", "Strong, playing to win": "強い（勝ちを狙う）", "Greedy": "欲ばり",
    "{cpu} (cannot play {rules})": "{cpu}（{rules}は不可）",
    "Good game!": "いい勝負！", "Nice roll!": "ナイスロール！", "Well played": "お見事", "Oops!": "おっと！",
    "Your turn!": "あなたの番です！", "Thanks!": "ありがとう！",

    // the server's refusals the page shows (its messages stay English; these are the ones known here)
    "no such table": "そのテーブルはありません",
    "the server is full; try again later": "サーバーが満員です。後でもう一度お試しください",
    "Roll the dice first.": "まずサイコロを振ってください。",
    "No rolls left: pick a box to score.": "振る回数が残っていません：記入する役を選んでください。",
    "The first roll of a turn rolls all the dice.": "ターンの最初はサイコロを全部振ります。",
    "That move was already made: the table has moved on since.": "その手はすでに指されました：テーブルは先に進んでいます。",
    "Nothing of yours to undo (undo works after you score, until the next roll).": "取り消せる手がありません（取り消しは記入後、次に振るまでです）。",
    "The game is over.": "ゲームは終了しました。",
    "The game is not over yet.": "ゲームはまだ終わっていません。",
    "The game is being stored: try again in a moment.": "ゲームを保存中です：少し後でもう一度どうぞ。",
    "Wait until every seat is taken.": "全席が埋まるまでお待ちください。",
    "No seat is free.": "空席はありません。",
    "This invite link is not for this table.": "この招待リンクはこのテーブルのものではありません。",
    "Every seat at this table is taken: you can watch.": "このテーブルは満席です：観戦できます。",
    "One reaction at a time: wait a moment.": "リアクションは1つずつ：少しお待ちください。",
    "That seat is already yours.": "その席はすでにあなたのものです。",
    "Only a player at the table can start a rematch.": "再戦を始められるのはテーブルのプレイヤーだけです。",
    "Only a player at the table can fill the free seats.": "空席を埋められるのはテーブルのプレイヤーだけです。",
    "There is no such box under these rules.": "このルールにその役はありません。",
    "a table needs at least one person seat": "テーブルには少なくとも1つ人の席が必要です",
    "a name needs at least one letter or digit": "名前には少なくとも1文字の文字か数字が必要です",
    "two seats would have the same name; names must differ in their letters or digits": "2つの席が同じ名前になります。名前は文字か数字で区別してください",
    "The daily deal is played alone: one seat.": "今日のディールは1人でプレイします：席は1つです。",
    "It is {name}'s turn.": "{name} さんの番です。",
    "{box} is already filled: pick an open box.": "{box} は記入済みです：空いている役を選んでください。",
    "Someone at this table is already called {name}: pick another name.": "このテーブルにはすでに {name} さんがいます：別の名前にしてください。",
    "Seat {n} is not yours (this device holds no token for it).": "席{n}はあなたの席ではありません（この端末はその席の鍵を持っていません）。",
    "A CPU plays seat {n} now.": "今は席{n}をCPUがプレイしています。",
  },
};

// the server's refusals that carry a name, a box or a seat: (pattern, catalogue id, the captures' names)
const SERVER_PATTERNS = [
  [/^It is (.+)'s turn\.$/, "It is {name}'s turn.", ["name"]],
  [/^(.+) is already filled: pick an open box\.$/, "{box} is already filled: pick an open box.", ["box"]],
  [/^Someone at this table is already called (.+): pick another name\.$/, "Someone at this table is already called {name}: pick another name.", ["name"]],
  [/^Seat (\d+) is not yours \(this device holds no token for it\)\.$/, "Seat {n} is not yours (this device holds no token for it).", ["n"]],
  [/^A CPU plays seat (\d+) now\.$/, "A CPU plays seat {n} now.", ["n"]],
];

const LANGUAGES = ["en", "ja"];

function pickLanguage() {
  // the switch's choice kept on this device, else the browser's first language the catalogue has
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem("yacht.lang")); } catch (e) { /* private mode or damaged */ }
  if (LANGUAGES.includes(kept)) return kept;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

const LANG = pickLanguage();

function t(id, vars) {
  const text = (LANG !== "en" && CATALOGUE[LANG][id]) || id;
  return vars ? text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : text;
}

function fromServer(text) {
  // a refusal the catalogue knows, in the page's language; else the server's words
  if (typeof text !== "string") return text;
  if (CATALOGUE.ja[text] !== undefined) return t(text);
  for (const [re, id, keys] of SERVER_PATTERNS) {
    const m = re.exec(text);
    if (m) return t(id, Object.fromEntries(keys.map((k, i) => [k, k === "box" ? t(m[i + 1]) : m[i + 1]])));
  }
  return text;
}

function translatePage() {
  // the static page through the catalogue: text nodes and the attributes people read or hear
  document.documentElement.lang = LANG;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walk.nextNode()) nodes.push(walk.currentNode);
  for (const n of nodes) {
    const id = n.nodeValue.replace(/\s+/g, " ").trim();
    if (id && n.parentElement.closest("[lang]") === document.documentElement) {
      const said = t(id);
      if (said !== id) n.nodeValue = n.nodeValue.replace(n.nodeValue.trim(), said);
    }
  }
  for (const e of document.body.querySelectorAll("[aria-label], [placeholder], [title]")) {
    for (const a of ["aria-label", "placeholder", "title"]) if (e.hasAttribute(a)) e.setAttribute(a, t(e.getAttribute(a)));
  }
  document.title = t(document.title);
}
