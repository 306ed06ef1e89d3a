// @ts-check
// A gap that a later lesson reopens (lesson 09 rewrites lesson 08's add_backward): once the learner has written
// the later lesson's version, that lesson runs it, and an edit in the earlier lesson does not reach it. The earlier
// lab says so on the gap, with a link to the later version.
import { el } from "../base/dom.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 */

/** The element id of a gap's entry in its lab: a link to it (`#ember-gap-L09.add_backward`) brings it into view. */
export const gapAnchor = (/** @type {string} */ id) => `ember-gap-${id}`;

/**
 * The note on gap `id` when the learner has written a later lesson's version of it (the latest one written), or
 * null when they have not.
 *
 * @param {Course} course
 * @param {string} siteRoot  the site's root address
 * @param {string} id
 * @param {Record<string, unknown>} pieces  the learner's stored pieces by gap id
 * @returns {HTMLElement | null}
 */
export function newerVersionNote(course, siteRoot, id, pieces) {
  const written = (course.gaps[id]?.later ?? []).filter((stage) => pieces[stage]);
  const latest = written[written.length - 1];
  if (!latest) return null;
  const lesson = course.lessons[course.gaps[latest].lesson];
  const number = String(lesson.number).padStart(2, "0");
  const here = String(course.lessons[course.gaps[id].lesson]?.number ?? "").padStart(2, "0");
  return el(
    "p",
    { class: "ember-gap-newer", "data-newer": latest },
    `Lesson ${number} rewrites this gap, and your newer version of it is there (`,
    el("code", { text: latest }),
    `). Lesson ${number} runs that one: what you change here stays in lesson ${here}'s version. `,
    lesson.url
      ? el("a", { href: `${siteRoot}${lesson.url}#${gapAnchor(latest)}` }, `Go to your version in lesson ${number}`)
      : null,
  );
}

/**
 * Bring the gap a link named (`#ember-gap-…`) into view once its lab is on the page, and put the keyboard there.
 *
 * @param {HTMLElement} holder  the lab
 */
export function revealLinkedGap(holder) {
  const hash = decodeURIComponent(location.hash.slice(1));
  if (!hash.startsWith(gapAnchor(""))) return;
  const entry = /** @type {HTMLElement | null} */ (holder.querySelector(`[id="${CSS.escape(hash)}"]`));
  if (!entry) return;
  entry.scrollIntoView({ block: "center" });
  entry.querySelector("button")?.focus({ preventScroll: true });
}
