// @ts-check
// A lab's gaps with the learner's course open in several tabs: what this tab types is saved on top of the stored
// piece its editor showed; what another tab saves comes into the editors in place (`follow`); a gap typed here while
// another tab's change to it had not arrived yet is kept beside the stored one, both shown until the learner keeps
// one; and a gap a tab on a newer release of the course saved becomes read-only here (see pieces.js and tabs.js).
//
// It talks to the lab only through LabSide: the editors' texts, and the few things only the lab can do.

import * as savedCode from "./pieces.js";
import { conflictBox, newerNote, versionsOf } from "./tabs.js";

/**
 * @typedef {import("../runtime/protocol.js").Work} Work
 * @typedef {import("./tabs.js").Version} Version
 *
 * What the tab-following asks of its lab: the lab's gaps and course version; the element the tabs' boxes go in;
 * whether the lab shows the learner's files; whether an editor holds a gap, the gap's text there, and a way to put
 * one there; making gaps read-only; showing stored texts Python must build first (``keepsItsText`` says
 * which gaps keep the editor's text); saying that a version was kept; the boxes shown; and whether an error
 * only means Python was restarted.
 * @typedef {{
 *   gapIds: string[],
 *   version: string,
 *   box: HTMLElement,
 *   ready: () => boolean,
 *   shows: (gap: string) => boolean,
 *   textOf: (gap: string) => string,
 *   setText: (gap: string, text: string) => void,
 *   lockGaps: (gaps: string[]) => void,
 *   showStored: (changed: string[], work: Work, keepsItsText: (gap: string) => boolean) => Promise<void>,
 *   kept: (gap: string) => void,
 *   boxesShown: (box: HTMLElement) => void,
 *   wasRestarted: (error: unknown) => boolean,
 * }} LabSide
 */

/** What a lab's editors show of the stored work, kept in step with the learner's other tabs. */
export class Following {
  /** @type {Record<string, string>} */ shown = {}; // each editable gap's text as this tab last saved or showed it
  /** @type {Record<string, string | null>} */ seen = {}; // the stored piece that text is (its rev; null: none)
  /** @type {Work} */ known = { exact: {}, pieces: {} }; // the stored work the editors show
  /** @type {Set<string>} */ held = new Set(); // gaps whose editor shows this tab's text kept beside the stored one
  /** @type {Set<string>} */ locked = new Set(); // gaps a tab on a newer release of the course saved
  following = false;
  followAgain = false;
  /** @type {Map<string, { box: HTMLElement, where: string, update: (versions: Version[]) => void }>} */
  conflictBoxes = new Map();
  lockedShown = "";

  /** @param {LabSide} lab */
  constructor(lab) {
    this.lab = lab;
  }

  /**
   * Save each of this lesson's gaps the learner changed, as they typed it, byte for byte, on top of the stored
   * piece the editor showed (savedCode.saveTyped): a gap another tab changed meanwhile keeps both texts.
   *
   * @param {Record<string, string>} texts
   */
  save(texts) {
    for (const [id, text] of Object.entries(texts)) {
      if (!this.lab.gapIds.includes(id) || text === this.shown[id] || this.locked.has(id)) continue;
      this.shown[id] = text;
      const { outcome, rev } = savedCode.saveTyped(id, text, this.seen[id] ?? null, this.lab.version);
      if (outcome === "saved") {
        this.seen[id] = rev;
        this.known.exact[id] = text;
        delete this.known.pieces[id];
      } else if (outcome === "kept beside") this.held.add(id);
      else this.lock([id]);
    }
    this.showTabs();
  }

  /**
   * Save exact-text changes ({gap: text or null}) the learner asked for (the lab shows them once the module is
   * rebuilt). Gaps a newer release of the course saved are not changed, and say so.
   *
   * @param {Record<string, string | null>} changes
   */
  saveChanges(changes) {
    const refused = savedCode.saveExact(changes, this.lab.version);
    const pieces = savedCode.pieces();
    for (const id of Object.keys(changes)) if (id in this.seen) this.seen[id] = pieces[id]?.rev ?? null;
    this.lock(refused.filter((id) => this.lab.gapIds.includes(id)));
  }

  /**
   * This tab's texts kept beside a stored piece, for this lab's gaps.
   *
   * @returns {Map<string, string>}
   */
  heldHere() {
    const held = new Map();
    for (const [gap, rivals] of Object.entries(savedCode.conflicts())) {
      const mine = rivals.find(savedCode.isThisTab);
      if (mine && this.lab.gapIds.includes(gap)) held.set(gap, mine.code);
    }
    return held;
  }

  /**
   * After a build: note what the editors show of the stored work; this tab's texts kept beside a stored piece go
   * back into its editor, and gaps a newer release of the course saved are locked.
   */
  takeStock() {
    const pieces = savedCode.pieces();
    const held = this.heldHere();
    this.known = savedCode.work();
    for (const id of this.lab.gapIds) {
      if (!this.lab.shows(id)) continue;
      const mine = held.get(id);
      if (mine !== undefined) this.lab.setText(id, mine);
      this.shown[id] = this.lab.textOf(id);
      this.seen[id] = pieces[id]?.rev ?? null;
    }
    this.held = new Set(held.keys());
    this.lock(this.lab.gapIds.filter((id) => savedCode.isNewer(pieces[id])));
    this.showTabs();
  }

  /**
   * Stop saving gaps a tab on a newer release of the course saved: they become read-only, and the lab says so.
   *
   * @param {string[]} gaps
   */
  lock(gaps) {
    for (const gap of gaps) this.locked.add(gap);
    if (!this.locked.size) return;
    this.lab.lockGaps([...this.locked]);
    this.showTabs();
  }

  /** Show in the editors what is stored now (another tab wrote it), and what the tabs' choices are. */
  async follow() {
    if (!this.lab.ready()) return; // a build under way reads the stored work when it ends
    if (this.following) {
      this.followAgain = true;
      return;
    }
    this.following = true;
    try {
      do {
        this.followAgain = false;
        await this.followOnce();
      } while (this.followAgain);
    } catch (error) {
      if (!this.lab.wasRestarted(error)) console.warn("could not show another tab's work:", error);
    } finally {
      this.following = false;
    }
  }

  /** One look at the stored work: the gaps it changed go into the editors, the cursor staying where it is. */
  async followOnce() {
    const pieces = savedCode.pieces();
    const held = this.heldHere();
    const work = savedCode.work();
    for (const id of this.lab.gapIds) {
      const stored = pieces[id];
      const seen = this.seen[id] ?? null;
      if (held.has(id) || !stored || stored.rev === seen || seen === null) continue;
      // This tab's last write was replaced by one written without it: keep it beside, not lose it.
      const overwritten = savedCode.wroteHere({ code: "", rev: seen }) && stored.after !== seen;
      if (overwritten && stored.code !== this.shown[id]) {
        savedCode.keepBeside(id, this.shown[id]);
        held.set(id, this.shown[id]);
      }
    }
    const changed = new Set([...this.held].filter((id) => !held.has(id))); // kept elsewhere: show what was kept
    for (const kind of /** @type {const} */ (["exact", "pieces"])) {
      for (const id of new Set([...Object.keys(work[kind]), ...Object.keys(this.known[kind])])) {
        if (work[kind][id] !== this.known[kind][id]) changed.add(id);
      }
    }
    for (const id of held.keys()) changed.delete(id);
    this.held = new Set(held.keys());
    const before = { ...this.shown };
    if (changed.size) {
      // A gap kept beside, or typed here while Python built the module, keeps the editor's text.
      const typing = { ...this.shown };
      const keepsItsText = (/** @type {string} */ id) =>
        this.held.has(id) || (this.lab.gapIds.includes(id) && this.shown[id] !== typing[id]);
      await this.lab.showStored([...changed], work, keepsItsText);
    }
    this.known = work;
    for (const id of this.lab.gapIds) {
      if (!this.lab.shows(id) || this.held.has(id) || this.shown[id] !== before[id]) continue; // typed meanwhile
      this.shown[id] = this.lab.textOf(id);
      this.seen[id] = pieces[id]?.rev ?? null;
    }
    this.lock(this.lab.gapIds.filter((id) => savedCode.isNewer(pieces[id])));
    this.showTabs();
  }

  /**
   * Keep one version of a gap typed in two tabs, and show it.
   *
   * @param {string} gap
   * @param {string | null} code
   */
  async keep(gap, code) {
    if (!savedCode.keepVersion(gap, code, this.lab.version)) {
      this.lock([gap]);
      return;
    }
    await this.follow();
    this.lab.kept(gap);
  }

  /** Show, above the editors, each gap typed in two tabs with its versions, and the gaps a newer release saved. */
  showTabs() {
    const conflicts = savedCode.conflicts();
    const pieces = savedCode.pieces();
    const box = this.lab.box;
    for (const [gap, shown] of this.conflictBoxes) {
      if (conflicts[gap]) continue;
      shown.box.remove();
      this.conflictBoxes.delete(gap);
    }
    for (const gap of this.lab.gapIds) {
      if (!conflicts[gap]) continue;
      const versions = versionsOf(pieces[gap], conflicts[gap], savedCode.wroteHere(pieces[gap]));
      const where = versions.map((version) => version.where).join();
      const shown = this.conflictBoxes.get(gap);
      if (shown?.where === where) {
        shown.update(versions);
        continue;
      }
      const made = conflictBox(gap, versions, (code) => this.keep(gap, code));
      if (shown) shown.box.replaceWith(made.box);
      else box.append(made.box);
      this.conflictBoxes.set(gap, { ...made, where });
    }
    const locked = [...this.locked].join();
    if (locked !== this.lockedShown) {
      this.lockedShown = locked;
      box.querySelector(".ember-tabs-newer")?.remove();
      if (this.locked.size) box.prepend(newerNote([...this.locked]));
    }
    if (this.conflictBoxes.size) this.lab.boxesShown(box); // versions wider than the box: reachable at once
  }
}
