"""The page's storage with one learner in several tabs (web/src/work/store.js, pieces.js and answers.js, run by
node): each write changes only its own gap on the state as stored, a gap typed in two tabs at once keeps both texts,
and a tab on an older release of the course never writes over a newer one's piece. Each tab is an instance of the
modules of its own, over one shared localStorage."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")

# Two tabs (and a newer one) of the page's storage over one localStorage; the test's steps run on them, and what
# they answer and what is stored in the end is printed.
TABS = """
import { register } from "node:module";
const items = new Map();
globalThis.window = new EventTarget();
window.localStorage = {
  getItem: (key) => (items.has(key) ? items.get(key) : null),
  setItem: (key, value) => items.set(key, String(value)),
  removeItem: (key) => items.delete(key),
};
// A tab's modules are one instance each: a module imported as .../x.js?tab=one imports its own as ?tab=one too.
register("data:text/javascript," + encodeURIComponent(`export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  const tab = context.parentURL && new URL(context.parentURL).searchParams.get("tab");
  if (!tab || !specifier.startsWith(".")) return found;
  const url = new URL(found.url);
  url.searchParams.set("tab", tab);
  return { ...found, url: url.href };
}`));
const tab = async (name, version, release) => {
  const names = ["store", "pieces", "answers"];
  const modules = await Promise.all(names.map((m) => import(`./web/src/work/${m}.js?tab=${name}`)));
  const storage = Object.assign({}, ...modules);
  storage.useCourse({ version, release });
  return storage;
};
const one = await tab("one", "v1", 100);
const two = await tab("two", "v1", 100);
const newer = await tab("newer", "v2", 200);
const stored = () => JSON.parse(items.get("ember:v1"));
"""


def run(steps: str) -> dict:
    script = TABS + steps
    result = subprocess.run([NODE, "--input-type=module", "-e", script], text=True, capture_output=True, cwd=ROOT,
                            check=True)
    return json.loads(result.stdout)


pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def test_a_gap_typed_in_two_tabs_at_once_keeps_both_texts_until_one_is_chosen() -> None:
    answer = run("""
const first = one.saveTyped("L10.backward", "a line from tab one", null, "v1");
const second = two.saveTyped("L10.backward", "a line from tab two", null, "v1");  // it never saw tab one's
const again = two.saveTyped("L10.backward", "a line from tab two, and more", null, "v1");
const onward = one.saveTyped("L10.backward", "a line from tab one, and more", first.rev, "v1");
const during = stored();
const kept = one.keepVersion("L10.backward", "a line from tab two, and more", "v1");
console.log(JSON.stringify({ first, second, again, onward, during, kept, after: stored(),
  mine: two.conflicts()["L10.backward"] === undefined, theirs: one.isThisTab(during.conflicts["L10.backward"][0]) }));
""")
    assert answer["first"]["outcome"] == "saved" and answer["onward"]["outcome"] == "saved"
    assert answer["second"] == {"outcome": "kept beside", "rev": answer["first"]["rev"]}
    assert answer["again"]["outcome"] == "kept beside"
    during = answer["during"]
    assert during["pieces"]["L10.backward"]["code"] == "a line from tab one, and more"
    assert during["pieces"]["L10.backward"]["after"] == answer["first"]["rev"]
    assert [rival["code"] for rival in during["conflicts"]["L10.backward"]] == ["a line from tab two, and more"]
    assert answer["theirs"] is False
    assert answer["kept"] is True
    assert answer["after"]["pieces"]["L10.backward"]["code"] == "a line from tab two, and more"
    assert "conflicts" not in answer["after"] and answer["mine"] is True


def test_edits_to_different_gaps_in_two_tabs_both_survive() -> None:
    answer = run("""
one.saveTyped("L09.neg", "neg from tab one", null, "v1");
two.saveTyped("L10.backward", "backward from tab two", null, "v1");
two.saveAnswer("L10.bfs", "four", true);
one.saveProgress("L10", 2, 5);
console.log(JSON.stringify(stored()));
""")
    assert {gap: piece["code"] for gap, piece in answer["pieces"].items()} == {
        "L09.neg": "neg from tab one", "L10.backward": "backward from tab two"}
    assert answer["answers"]["L10.bfs"]["option"] == "four" and answer["progress"]["L10"]["passed"] == 2
    assert answer["pieces"]["L10.backward"]["release"] == 100 and answer["pieces"]["L10.backward"]["version"] == "v1"


def test_a_tab_on_an_older_release_never_writes_over_a_newer_ones_piece() -> None:
    answer = run("""
const first = one.saveTyped("L10.backward", "older", null, "v1");
const onTop = newer.saveTyped("L10.backward", "newer", first.rev, "v2");  // a newer release moves older work on
const typed = one.saveTyped("L10.backward", "older again", onTop.rev, "v1");
const reset = one.saveExact({ "L10.backward": null, "L09.neg": "neg" }, "v1");
const chosen = one.keepVersion("L10.backward", "older", "v1");
const seen = one.isNewer(stored().pieces["L10.backward"]);
const seenByNewer = newer.isNewer(stored().pieces["L09.neg"]);
console.log(JSON.stringify({ onTop, typed, reset, chosen, seen, seenByNewer, after: stored() }));
""")
    assert answer["onTop"]["outcome"] == "saved"
    assert answer["typed"] == {"outcome": "newer", "rev": answer["onTop"]["rev"]}
    assert answer["reset"] == ["L10.backward"] and answer["chosen"] is False
    assert answer["seen"] is True and answer["seenByNewer"] is False
    assert answer["after"]["pieces"]["L10.backward"]["code"] == "newer"
    assert answer["after"]["pieces"]["L10.backward"]["release"] == 200
    assert answer["after"]["pieces"]["L09.neg"]["code"] == "neg"


def test_pieces_saved_before_releases_are_older_than_any_release() -> None:
    answer = run("""
window.localStorage.setItem("ember:v1", JSON.stringify({ pieces: {
  "L10.backward": { code: "saved long ago", version: "v0", saved: 1, exact: true } } }));
const typed = one.saveTyped("L10.backward", "typed now", null, "v1");
console.log(JSON.stringify({ typed, after: stored() }));
""")
    assert answer["typed"]["outcome"] == "saved"
    assert answer["after"]["pieces"]["L10.backward"]["code"] == "typed now"


def test_texts_kept_beside_a_piece_are_read_back_and_damaged_ones_set_aside() -> None:
    answer = run("""
const good = { code: "x", tab: "t1", saved: 5 };
const conflicts = { "L10.backward": [good], "L09.neg": [{ code: 3 }], "L09.sub": [] };
const raw = JSON.stringify({ pieces: {}, conflicts });
console.log(JSON.stringify(one.validate(raw)));
""")
    assert answer["state"]["conflicts"] == {"L10.backward": [{"code": "x", "tab": "t1", "saved": 5}]}
    assert answer["unreadable"] == ['conflicts entry "L09.neg"', 'conflicts entry "L09.sub"']
