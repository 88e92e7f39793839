"""ten view's page and ten play --web, in a real browser: headless Chromium driven by Selenium.

Chromium and its driver come from the system packages (``apt-get install -y chromium
chromium-driver``; ``.ci/run`` installs them), Selenium from the ``test`` extra. Without
them these tests fail, saying what to install: they are never skipped.
"""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

import pytest

from agents import HeuristicAgent, JenAgent, PolicyAgent
from ten_env import Rules, payment
from ten_env import cards as C
from ten_env.actions import action_names
from ten_env.game import BUST_LIMIT
from ten_env.record import Recorder
from train.record import play_recorded
from train.view import page
from train.webplay import WebGame, make_server

# One worker runs this module under pytest-xdist (--dist loadgroup): its tests share one browser.
pytestmark = pytest.mark.xdist_group("chromium")

INSTALL = "apt-get install -y chromium chromium-driver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")


def _binary(*names: str) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    pytest.fail(f"the browser tests need {' or '.join(names)}: install it with `{INSTALL}`", pytrace=False)


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("the browser tests need selenium: pip install -e '.[test]'", pytrace=False)

    options = webdriver.ChromeOptions()
    options.binary_location = _binary("chromium", "chromium-browser")
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.TemporaryDirectory()
    options.add_argument(f"--user-data-dir={profile.name}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(_binary("chromedriver")))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    profile.cleanup()


def _errors(driver) -> list:
    """Console messages of level warning or above since the last call (the log is read once)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


def _text(driver, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def _press(driver, key: str) -> None:
    driver.find_element("tag name", "body").send_keys(key)


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """The page of a solitaire game of the shipped policy against JEN, written to disk."""
    agent = PolicyAgent.pretrained("ppo-jen")
    rec = Recorder(Rules(jen_level=6), [agent.name], seed=5)
    play_recorded(rec, {0: agent})
    path = tmp_path_factory.mktemp("view") / "game.html"
    path.write_text(page(rec.to_dict()))
    return path, rec


def test_the_replay_page_opens_from_disk_and_steps(browser, replay):
    from selenium.webdriver.common.keys import Keys

    path, rec = replay
    browser.get(path.as_uri())
    assert _errors(browser) == []
    steps = len(rec.steps)
    assert _text(browser, "position") == f"action 0 of {steps}"
    assert "about to start" in _text(browser, "events")
    start_deck = _text(browser, "deck")

    _press(browser, Keys.ARROW_RIGHT)  # the first draw
    assert _text(browser, "position") == f"action 1 of {steps}"
    first = rec.steps[0]["events"][0]["text"]
    assert first in _text(browser, "events")
    assert _text(browser, "deck") != start_deck
    card = rec.steps[0]["events"][0]["card"]
    auctioned = "auction" in first  # a wildcard is auctioned and never enters the tableau
    assert (card in _text(browser, "tableau")) is not auctioned

    browser.find_element("id", "next").click()
    assert _text(browser, "position") == f"action 2 of {steps}"
    _press(browser, Keys.ARROW_LEFT)
    assert _text(browser, "position") == f"action 1 of {steps}"

    _press(browser, Keys.END)  # the end: final scores and the winner
    assert _text(browser, "position") == f"action {steps} of {steps}"
    assert rec.to_dict()["result"]["text"] in _text(browser, "events")
    final = rec.steps[-1]["state"]["players"]
    board = _text(browser, "players")
    for player in final:
        assert f"score {player['score']}" in board and f"coins {player['coins']}" in board
    # each colour's scoring run is highlighted: as many cells as the run is long
    runs = [run for run in final[0]["runs"] if run]
    cells = browser.find_elements("css selector", "#player-0 td.run")
    assert runs and len(cells) == sum(run["to"] - run["from"] + 1 for run in runs)

    # a decision of the policy: the network's value and probabilities are shown
    decision = next(i for i, s in enumerate(rec.steps, 1) if "policy" in s)
    browser.find_elements("css selector", "#log li")[decision - 1].click()
    assert _text(browser, "position") == f"action {decision} of {steps}"
    shown = _text(browser, "policy")
    assert f"value {rec.steps[decision - 1]['policy']['value']:.3f}" in shown and "%" in shown
    _press(browser, Keys.HOME)
    assert _text(browser, "position") == f"action 0 of {steps}"
    assert _errors(browser) == []


def test_the_page_prices_each_buy_and_names_the_bust_limit_as_the_engine_does(browser, replay, monkeypatch, tmp_path):
    """Both come from the engine (the page read a buy's price off its name, and had the limit written in):
    the page shows what it is given, and it is given the engine's."""
    import train.view

    path, rec = replay
    assert train.view.RULE_FACTS == {"colours": ["B", "G", "O", "P"], "numbers": 9, "currency_values": 5,
                                     "bust_limit": BUST_LIMIT, "prices": {
        name: payment.price(C.parse(name.removeprefix("buy_"))) for name in action_names(40) if name.startswith("buy_")}}
    facts = {**train.view.RULE_FACTS, "bust_limit": 12,
             "prices": {name: 2 * price + 10 for name, price in train.view.RULE_FACTS["prices"].items()}}
    monkeypatch.setattr(train.view, "RULE_FACTS", facts)
    altered = tmp_path / "altered.html"
    altered.write_text(page(rec.to_dict()))
    browser.get(altered.as_uri())
    assert "(above 12 busts)" in _text(browser, "tableau")
    buying = next(i for i, step in enumerate(rec.steps, 1)
                  if any(action.startswith("buy_") for action, _ in step.get("policy", {}).get("probs", [])[:10]))
    browser.find_elements("css selector", "#log li")[buying - 1].click()
    shown = _text(browser, "policy")
    buys = [action for action, _ in rec.steps[buying - 1]["policy"]["probs"][:10] if action.startswith("buy_")]
    assert buys and all(f"% {action} ({facts['prices'][action]})" in shown for action in buys)
    assert _errors(browser) == []


def test_the_page_draws_its_deck_and_hand_tables_from_the_engines_card_table(browser, replay, monkeypatch, tmp_path):
    """The colours, the numbers a colour runs to and the currency cards' values are the engine's
    (the page had 1-9, $1-$5 and B G O P written in): given others, it draws others."""
    import train.view

    def tables(html: str) -> tuple[list, list]:
        shown = tmp_path / "shown.html"
        shown.write_text(html)
        browser.get(shown.as_uri())
        assert _errors(browser) == []
        return browser.execute_script(
            "const cells = (r) => [...r.children].map((c) => c.textContent);"
            "return [[...document.querySelectorAll('#deck tr')].map(cells),"
            "        [...document.querySelectorAll('table.hand')].map((t) => [...t.querySelectorAll('tr')].map(cells))];")

    path, rec = replay
    deck, hands = tables(page(rec.to_dict()))
    assert deck[0] == ["", *map(str, range(1, 10)), "#"] and [row[0] for row in deck] == ["", "B", "G", "O", "P", "W", "$"]
    assert all(len(hand) == 4 and all(len(row) == 11 for row in hand) for hand in hands)
    monkeypatch.setattr(train.view, "RULE_FACTS",
                        {**train.view.RULE_FACTS, "colours": ["B", "G", "O"], "numbers": 4, "currency_values": 6})
    altered, altered_hands = tables(page(rec.to_dict()))
    assert altered[0] == ["", "1", "2", "3", "4", "5", "6", "#"]  # max(4 numbers, 6 currency values) columns
    assert [row[0] for row in altered] == ["", "B", "G", "O", "W", "$"]
    for colour in range(1, 4):  # each colour's cards 1-4 as before, and no 5 or 6
        assert altered[colour][1:5] == deck[colour][1:5] and altered[colour][5:7] == ["", ""]
    assert altered[-1][1:6] == deck[-1][1:6] and altered[-1][6] == ""  # $1-$5 as before; the deck has no $6
    assert len(altered_hands) == len(hands) and all(
        len(hand) == 3 and all(len(row) == 6 for row in hand) for hand in altered_hands)  # a colour, 4 numbers, its score


def test_a_save_that_fails_at_the_end_does_not_refuse_the_last_move(tmp_path, capsys):
    """The folder of --save has gone when the game ends: the last move is played and answered as
    every move is, and the terminal says the record is not saved yet."""
    save = tmp_path / "gone" / "g.json"
    web = WebGame(Rules(num_players=2), {1: HeuristicAgent()}, ["you", "heuristic"], seed=3, save=save)
    record = web.record()
    while record["result"] is None:
        record = web.act(web.rec.game.legal_action_names()[0])
    assert web.rec.game.is_over and not save.exists()
    assert capsys.readouterr().err == (f"ten: warning: the game is over but not saved: cannot write {str(save)!r}: "
                                       f"No such file or directory; it is tried again when the server stops\n")


@pytest.fixture()
def web_game():
    """A live game against two agents, served on a free port in this process."""
    server = make_server(0)
    web = WebGame(Rules(num_players=3), {1: HeuristicAgent(), 2: JenAgent(5)}, ["you", "heuristic", "jen:5"],
                  seed=3)
    server.web = web
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield web, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_a_move_in_the_browser_reaches_the_engine(browser, web_game):
    from selenium.webdriver.support.ui import WebDriverWait

    web, url = web_game
    browser.get(url)
    assert _errors(browser) == []
    # the person is "you", named once, in their own grammar (it read "you (you) is drawing")
    assert _text(browser, "summary") == "you vs heuristic vs jen:5"
    assert "(you)" not in browser.find_element("tag name", "body").text
    assert web.rec.game.active_player == 0 and "you are drawing" in _text(browser, "tableau")
    legal = web.rec.game.legal_action_names()
    buttons = browser.find_elements("css selector", "#moves button")
    assert [b.get_attribute("data-action") for b in buttons] == legal
    made = len(web.rec.game.history)
    choice = "stop_numbers" if "stop_numbers" in legal else legal[-1]
    next(b for b in buttons if b.get_attribute("data-action") == choice).click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "position").text != f"action {made} of {made}")
    seat, action, forced = web.rec.game.history[made]
    assert (seat, web.rec.game.action_name(action), forced) == (0, choice, False)
    # the page shows the record after the move and the agents' replies
    steps = len(web.rec.steps)
    assert _text(browser, "position") == f"action {steps} of {steps}"
    told = _text(browser, "events")
    assert all(e["text"] in told for step in web.rec.steps[made:] for e in step["events"])
    assert _errors(browser) == []


def test_a_double_click_in_the_browser_makes_one_move(browser, web_game):
    """Both clicks land before the first answer: the buttons wait for it, so the second does nothing
    (it drew a second card, and could bust the person)."""
    from selenium.webdriver.support.ui import WebDriverWait

    web, url = web_game
    browser.get(url)
    made = len(web.rec.game.history)
    button = browser.find_elements("css selector", "#moves button")[0]
    chosen = button.get_attribute("data-action")
    browser.execute_script("arguments[0].click(); arguments[0].click();", button)
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "position").text != f"action {made} of {made}")
    mine = [web.rec.game.action_name(action) for seat, action, forced in web.rec.game.history[made:]
            if seat == 0 and not forced]
    assert mine == [chosen] and _text(browser, "error") == ""
    assert _errors(browser) == []


def test_the_move_buttons_stay_disabled_when_drawn_again_while_a_move_is_on_its_way(browser, web_game):
    from selenium.webdriver.support.ui import WebDriverWait

    web, url = web_game
    browser.get(url)
    made = len(web.rec.game.history)
    button = browser.find_elements("css selector", "#moves button")[0]
    # the click, then the arrow keys away and back, all before the move's answer can come
    disabled = browser.execute_script(
        "arguments[0].click();"
        "for (const key of ['ArrowLeft', 'ArrowRight'])"
        "  document.dispatchEvent(new KeyboardEvent('keydown', {key: key}));"
        "return [...document.querySelectorAll('#moves button')].map((b) => b.disabled);", button)
    assert disabled and all(disabled)
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "position").text != f"action {made} of {made}")
    after = browser.find_elements("css selector", "#moves button")
    assert after and all(b.is_enabled() for b in after) and _errors(browser) == []


def test_a_networks_view_is_shown_in_a_live_game_only_once_it_is_over(browser):
    from agents import PolicyAgent

    server = make_server(0)
    web = WebGame(Rules(num_players=2), {1: PolicyAgent.pretrained("ppo-2p")}, ["you", "ppo-2p"], seed=4)
    server.web = web
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        while not any("policy" in step for step in web.rec.steps):
            web.act(web.rec.game.legal_action_names()[0])
        noted = next(i for i, step in enumerate(web.rec.steps, 1) if "policy" in step)
        browser.get(url)
        browser.find_elements("css selector", "#log li")[noted - 1].click()
        assert not browser.find_element("id", "policy-box").is_displayed()
        while not web.rec.game.is_over:
            web.act(web.rec.game.legal_action_names()[0])
        browser.get(url)
        browser.find_elements("css selector", "#log li")[noted - 1].click()
        assert browser.find_element("id", "policy-box").is_displayed()
        assert f"value {web.rec.steps[noted - 1]['policy']['value']:.3f}" in _text(browser, "policy")
        assert _errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


def test_a_record_the_page_cannot_show_says_so_instead_of_a_blank_page(browser, tmp_path):
    """A record that passes the shape check (it keeps neither seed nor deck) but lacks what the page reads."""
    from train.view import page

    record = {"format": "ten-record", "version": 2, "rules": {}, "players": [{"name": "a"}, {"name": "b"}],
              "initial": {"players": [{}, {}]}, "steps": []}
    path = tmp_path / "broken.html"
    path.write_text(page(record))
    browser.get(path.as_uri())
    assert _text(browser, "problem").startswith("this record cannot be shown at action 0: ")


def test_the_server_refuses_what_is_not_a_move(web_game):
    web, url = web_game
    made = len(web.rec.game.history)
    request = urllib.request.Request(url + "act", data=json.dumps({"action": "bid_99"}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert "'bid_99' is not one of your moves now; legal: " in json.loads(refused.value.read())["error"]
    assert len(web.rec.game.history) == made
    with urllib.request.urlopen(url + "record", timeout=10) as reply:
        assert json.loads(reply.read())["steps"] == web.rec.to_dict()["steps"]


def test_a_sigterm_stops_the_server_and_saves_the_game(tmp_path):
    saved = tmp_path / "g.json"
    server = subprocess.Popen([sys.executable, "-m", "train.cli", "play", "--web", "--port", "0", "--save", str(saved),
                               "--seed", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        assert first.startswith("the game is at http://127.0.0.1:"), first
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 0 and err == ""
    assert "server stopped" in out and f"saved {saved}" in out
    record = json.loads(saved.read_text())
    assert record["seed"] == 3 and record["steps"]  # the whole record: seed and all, as Ctrl-C saves it


def test_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ValueError, match=f"port {port} is already in use on 127.0.0.1: choose another"):
            make_server(port)
        run = subprocess.run([sys.executable, "-m", "train.cli", "play", "--web", "--port", str(port),
                              "--save", str(tmp_path / "g.json")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr == f"ten: error: port {port} is already in use on 127.0.0.1: choose another with --port\n"
    assert list(tmp_path.iterdir()) == []


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.read()


def _secrets(data) -> list:
    """Every "seed" with a value and every "deck" that is a list (a deck order), anywhere in ``data``."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if (key == "seed" and value is not None) or (key == "deck" and isinstance(value, list)):
                found.append((key, value))
            found += _secrets(value)
    elif isinstance(data, list):
        for value in data:
            found += _secrets(value)
    return found


def test_the_live_game_never_shows_the_deck_order(web_game):
    """Neither the page nor /record holds the seed (or a deck list) while the game runs:
    from the seed, anybody could rebuild the deck's order. The finished record has it."""
    web, url = web_game
    html = _get(url).decode()
    data = json.loads(html.split('<script id="data" type="application/json">')[1].split("</script>")[0])
    assert data["record"]["steps"] and _secrets(data) == []
    assert _secrets(json.loads(_get(url + "record"))) == []
    while not web.rec.game.is_over:
        legal = web.rec.game.legal_action_names()
        record = web.act("stop_numbers" if "stop_numbers" in legal else legal[0])
        assert web.rec.game.is_over or _secrets(record) == []
    finished = json.loads(_get(url + "record"))
    assert finished["seed"] == 3 and finished["result"]
    assert web.record(public=False)["seed"] == 3


def _raw(url: str, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, dict]:
    """Send exactly these headers (no Host or Content-Length added); the status and the JSON answer."""
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for key, value in (headers or {}).items():
        connection.putheader(key, value)
    connection.endheaders(body or None)
    reply = connection.getresponse()
    answer = reply.status, json.loads(reply.read())
    connection.close()
    return answer


@pytest.mark.parametrize("body, headers, status, error", [
    (b"{not json", {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b'["draw"]', {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b'"draw"', {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b'{"move": "draw"}', {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b'{"action": null}', {}, 400, "None is not one of your moves now; legal: "),
    (b"\xff\xfe", {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b"[" * 3000, {}, 400, 'send a move as JSON: {"action": NAME}'),
    (b'{"action": "draw"}', {"Content-Length": "-5"}, 400, "a move needs a Content-Length of 0 to 4096 bytes, got '-5'"),
    (b'{"action": "draw"}', {"Content-Length": "lots"}, 400, "a move needs a Content-Length of 0 to 4096"),
    (b'{"action": "draw"}', {"Content-Length": None}, 400, "a move needs a Content-Length of 0 to 4096 bytes, got None"),
    (b'{"action": "' + b"x" * 5000 + b'"}', {}, 400, "a move needs a Content-Length of 0 to 4096 bytes, got '5014'"),
    (b'{"action": "draw"}', {"Content-Type": "text/plain"}, 415,
     "send a move with Content-Type: application/json, got 'text/plain'"),
    (b'{"action": "draw"}', {"Content-Type": None}, 415, "send a move with Content-Type: application/json, got None"),
    (b'{"action": "draw"}', {"Host": "evil.example:{port}"}, 403, "this game answers only at http://127.0.0.1:"),
    (b'{"action": "draw"}', {"Host": None}, 403, "this game answers only at http://127.0.0.1:"),
    (b'{"action": "draw"}', {"Host": "127.0.0.1:1"}, 403, "the request named the host '127.0.0.1:1'"),
], ids=["bad-json", "list", "string", "no-action", "null-action", "not-utf8", "too-deep", "negative-length", "length-not-a-number",
        "no-length", "too-long", "text-plain", "no-content-type", "other-host", "no-host", "other-port"])
def test_the_server_refuses_malformed_requests(web_game, body, headers, status, error):
    """Each is refused with one JSON error at once (no hang, no traceback), and no move is made."""
    web, url = web_game
    port = url.rstrip("/").rsplit(":", 1)[1]
    sent = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", "Content-Length": str(len(body))}
    for key, value in headers.items():
        if value is None:
            del sent[key]
        else:
            sent[key] = value.replace("{port}", port)
    made = len(web.rec.game.history)
    code, answer = _raw(url, "POST", "/act", body, sent)
    assert code == status and error in answer["error"], answer
    assert len(web.rec.game.history) == made


def test_the_server_answers_only_its_own_host_names(web_game):
    web, url = web_game
    port = url.rstrip("/").rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert _raw(url, "GET", "/record", headers={"Host": host})[0] == 200
    code, answer = _raw(url, "GET", "/record", headers={"Host": f"rebound.example:{port}"})
    assert code == 403 and "seed" not in answer and "steps" not in answer
    made, legal = len(web.rec.game.history), web.rec.game.legal_action_names()
    move = json.dumps({"action": legal[0]}).encode()
    code, answer = _raw(url, "POST", "/act", move, {"Host": f"localhost:{port}", "Content-Length": str(len(move)),
                                                     "Content-Type": "application/json; charset=utf-8"})
    assert code == 200 and answer["record"]["steps"][made]["action"] == legal[0]
    assert web.rec.game.history[made][0] == 0


@pytest.mark.parametrize("method, path, allow", [("GET", "/act", "POST"), ("PUT", "/act", "POST"),
                                                 ("HEAD", "/act", "POST"), ("GET", "/act?x=1", "POST"),
                                                 ("DELETE", "/", "GET, HEAD"),
                                                 ("PATCH", "/record", "GET, HEAD"), ("OPTIONS", "/", "GET, HEAD"),
                                                 ("TRACE", "/", "GET, HEAD")])
def test_a_method_the_game_does_not_take_is_a_405_in_json(web_game, method, path, allow):
    web, url = web_game
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    made = len(web.rec.game.history)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request(method, path, headers={"Host": f"127.0.0.1:{port}"})
    reply = connection.getresponse()
    assert reply.status == 405 and reply.getheader("Allow") == allow
    body = reply.read()
    if method == "HEAD":  # headers only
        assert body == b""
    else:
        assert json.loads(body) == {"error": f"{method} {path}: read the game with GET / or GET /record, "
                                             f"and POST a move to /act"}
    connection.close()
    assert len(web.rec.game.history) == made


@pytest.mark.parametrize("path", ["/", "/record"])
def test_head_answers_with_the_headers_of_get_and_no_body(web_game, path):
    web, url = web_game
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    made = len(web.rec.game.history)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    answers = []
    for method in ("GET", "HEAD"):
        connection.request(method, path, headers={"Host": f"127.0.0.1:{port}"})
        reply = connection.getresponse()
        answers.append((reply.status, reply.getheader("Content-Type"), reply.getheader("Content-Length"),
                        reply.read()))
    connection.close()
    (get_status, get_kind, get_length, get_body), (head_status, head_kind, head_length, head_body) = answers
    assert get_status == head_status == 200 and get_kind == head_kind
    assert int(head_length) == int(get_length) == len(get_body) > 0 and head_body == b""
    assert len(web.rec.game.history) == made


def _post(url: str, move: dict, **headers) -> tuple[int, dict]:
    port = url.rstrip("/").rsplit(":", 1)[1]
    body = json.dumps(move).encode()
    return _raw(url, "POST", "/act", body, {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
                                            "Content-Length": str(len(body)), **headers})


def test_a_move_chosen_from_an_older_record_is_not_played(web_game):
    """A double click sends the same move twice, each chosen after the same step: the second is
    refused with the record as it is now (it drew a second card)."""
    web, url = web_game
    steps = len(web.rec.steps)
    first = "draw" if "draw" in web.rec.game.legal_action_names() else web.rec.game.legal_action_names()[0]
    code, answer = _post(url, {"action": first, "at": steps})
    assert code == 200
    after = len(web.rec.steps)
    assert after > steps and answer["record"]["steps"][steps]["action"] == first
    code, answer = _post(url, {"action": first, "at": steps})
    assert code == 409 and answer["error"] == (f"this move was chosen after step {steps}, and the game has moved "
                                               f"on to step {after}: it is not played")
    assert answer["record"] == web.record() and len(web.rec.steps) == after
    code, answer = _post(url, {"action": first, "at": "now"})
    assert code == 400 and answer["error"] == "'at' must be the number of steps the move was chosen after, got 'now'"
    assert len(web.rec.steps) == after


def test_a_move_from_another_sites_page_is_refused_and_no_site_may_frame_the_game(web_game):
    web, url = web_game
    port = url.rstrip("/").rsplit(":", 1)[1]
    made, legal = len(web.rec.steps), web.rec.game.legal_action_names()
    code, answer = _post(url, {"action": legal[0], "at": made}, Origin="http://evil.example")
    assert code == 403 and answer["error"] == (f"moves come only from the game's own page at http://127.0.0.1:{port}/; "
                                               f"this one came from 'http://evil.example'")
    assert len(web.rec.steps) == made
    assert _post(url, {"action": legal[0], "at": made}, Origin=f"http://localhost:{port}")[0] == 200
    with urllib.request.urlopen(url, timeout=10) as reply:
        assert reply.getheader("X-Frame-Options") == "DENY"
        assert reply.getheader("Content-Security-Policy") == "frame-ancestors 'none'"


def test_on_port_80_the_host_may_leave_out_the_port():
    """A browser writes the Host of http://127.0.0.1/ without ":80" (the page was refused there).
    The server here listens on a free port and is told it is port 80."""
    server = make_server(0)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    server.web = WebGame(Rules(num_players=2), {1: HeuristicAgent()}, ["you", "heuristic"], seed=3)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert _raw(url, "GET", "/record", headers={"Host": "127.0.0.1"})[0] == 403
        server.server_address = ("127.0.0.1", 80)
        for host in ("127.0.0.1", "localhost", "127.0.0.1:80"):
            assert _raw(url, "GET", "/record", headers={"Host": host})[0] == 200, host
        assert _raw(url, "GET", "/record", headers={"Host": "evil.example"})[0] == 403
    finally:
        server.shutdown()
        server.server_close()


def test_a_browser_gone_before_its_answer_is_no_error_on_the_terminal(capsys):
    server = make_server(0)
    try:
        for gone in (ConnectionResetError(104, "Connection reset by peer"), BrokenPipeError(32, "Broken pipe")):
            try:
                raise gone
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 5))
        assert capsys.readouterr().err == ""
        try:
            raise RuntimeError("a real fault")
        except RuntimeError:
            server.handle_error(None, ("127.0.0.1", 5))
        assert "RuntimeError: a real fault" in capsys.readouterr().err
    finally:
        server.server_close()


def test_a_query_string_asks_for_the_same_page_and_record(web_game):
    web, url = web_game
    with urllib.request.urlopen(url + "?from=bookmark", timeout=10) as reply:
        assert reply.status == 200 and "text/html" in reply.getheader("Content-Type")
    with urllib.request.urlopen(url + "record?t=1", timeout=10) as reply:
        assert json.loads(reply.read())["steps"] == web.rec.to_dict()["steps"]


class _Illegal:
    """A bot of the person's opponent that answers with a move the game never allows now."""

    def act(self, observation, info):
        return 131  # bid_40, when it is to draw


def test_an_opponent_that_cannot_move_stops_the_game_in_one_line(capsys):
    """An opponent's illegal move dropped the request (the server printed two tracebacks), and the
    person could then play the opponent's moves for it."""
    server = make_server(0)
    server.web = web = WebGame(Rules(num_players=2), {1: _Illegal()}, ["you", "bot"], seed=3)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        while web.rec.game.current_player == 0:  # the person moves until the bot's turn
            code, answer = _post(url, {"action": "stop_numbers" if "stop_numbers" in web.rec.game.legal_action_names()
                                       else web.rec.game.legal_action_names()[0]})
            if code != 200:
                break
        assert code == 500, answer
        assert answer["error"] == ("the game cannot go on: the agent _Illegal (seat 1) chose a move the game refuses: "
                                   "action 'bid_40' (id 131) is not legal for player 1 in the draw phase; legal: "
                                   "draw, stop_numbers")
        assert answer["record"] == web.record()
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.strip() == "ten: error: " + answer["error"].split(": ", 1)[1]
        steps = len(web.rec.steps)
        code, answer = _post(url, {"action": "draw"})  # the bot's move, offered by the person: refused
        assert code == 400 and answer["error"].startswith("the game cannot go on: the agent _Illegal")
        assert len(web.rec.steps) == steps
    finally:
        server.shutdown()
        server.server_close()
