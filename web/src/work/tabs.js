// @ts-check
// What a lab says when the learner has the course open in several tabs: a gap typed in two tabs at once, with
// both versions until the learner keeps one (the look and words of the notebook's box, handover.js), and a tab
// on an older release of the course, which stops saving the gaps a newer release's tab saved.

import { el } from "../base/dom.js";
import * as savedCode from "./pieces.js";

/**
 * One version of a gap typed in two tabs: where it was typed, and its text (null: the gap's starting code).
 * @typedef {{ where: string, code: string | null }} Version
 */

let boxes = 0;

/**
 * The versions of a gap typed in two tabs, as this tab names them: the stored piece first, then the texts kept
 * beside it; "In this tab" for the one typed here.
 *
 * @param {savedCode.Piece | undefined} stored
 * @param {savedCode.Rival[]} rivals
 * @param {boolean} storedHere  whether this tab wrote the stored piece
 * @returns {Version[]}
 */
export function versionsOf(stored, rivals, storedHere) {
  const here = [storedHere, ...rivals.map(savedCode.isThisTab)];
  const codes = [stored ? stored.code : null, ...rivals.map((rival) => rival.code)];
  const names = here.includes(true) ? ["another tab"] : ["one tab", "another tab"];
  let others = 0;
  return codes.map((code, index) => {
    if (here[index]) return { where: "this tab", code };
    others += 1;
    return { where: names[others - 1] ?? `another tab (${others})`, code };
  });
}

/**
 * The box for one gap typed in two tabs: what happened, each version, and a button to keep each. It is a group
 * named by its first sentence, which is said at once (role=alert). ``onKeep`` gets the text kept; ``update``
 * shows new texts of the same versions in place (the focus stays on its button).
 *
 * @param {string} gap
 * @param {Version[]} versions
 * @param {(code: string | null) => void} onKeep
 * @returns {{ box: HTMLElement, update: (versions: Version[]) => void }}
 */
export function conflictBox(gap, versions, onKeep) {
  const id = `ember-two-tabs-${++boxes}`;
  const current = [...versions];
  const box = el(
    "div",
    { class: "ember-two-tabs", role: "group", "aria-labelledby": id, "data-gap": gap },
    el("p", {
      id,
      role: "alert",
      text: `${gap} was changed in two tabs at once. Both versions are kept until you choose.`,
    }),
  );
  const shown = el("div", { class: "ember-conflict-versions" });
  const buttons = el("div", { class: "ember-toolbar" });
  /** @type {HTMLPreElement[]} */
  const texts = [];
  current.forEach(({ where }, index) => {
    const text = el("pre");
    texts.push(text);
    shown.append(el("div", { "data-where": where }, el("p", { text: `In ${where}:` }), text));
    buttons.append(
      el(
        "button",
        { class: "md-button", type: "button", onclick: () => onKeep(current[index].code) },
        `Keep the one in ${where}`,
      ),
    );
  });
  /** @param {Version[]} now */
  const update = (now) => {
    now.forEach((version, index) => {
      current[index] = version;
      texts[index].textContent = version.code ?? "(the gap's starting code)";
    });
  };
  update(versions);
  box.append(shown, buttons);
  return { box, update };
}

/**
 * What a tab on an older release of the course says once a newer release's tab saved some of this lab's gaps.
 *
 * @param {string[]} gaps
 * @returns {HTMLElement}
 */
export function newerNote(gaps) {
  const which = gaps.length === 1 ? `gap ${gaps[0]}` : `gaps ${gaps.join(", ")}`;
  return el(
    "div",
    { class: "ember-tabs-newer", role: "alert" },
    el("p", {
      text:
        `Another tab has a newer version of the course, and it saved your work in ${which}. ` +
        "This tab no longer saves there, so that nothing newer is overwritten. " +
        "Reload this page to carry on with your latest work.",
    }),
    el(
      "div",
      { class: "ember-toolbar" },
      el("button", { class: "md-button", type: "button", onclick: () => location.reload() }, "Reload this page"),
    ),
  );
}
