// @ts-check
// Example cells: editable code, Run (or Ctrl/Cmd+Enter), Stop, and the outputs drawn below.

import { el } from "../base/dom.js";
import { lessonOf } from "../base/ids.js";
import { PROBLEM } from "../runtime/protocol.js";
import * as savedCode from "../work/pieces.js";
import { renderLive, renderOutputs, roomIn } from "./cell-output.js";
import { cellEditor } from "./editor.js";

const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)");

/**
 * What a cell's failure offers: the page's lesson, and a way to load earlier lessons' finished pieces (null
 * where there are none to load).
 * @typedef {{ lesson: string, loadFinished: (() => Promise<unknown>) | null }} ErrorHelp
 */

/**
 * The Python (its number of restarts, runtime.restarts) in which each cell last ran, by "page#index": the names
 * it made live in that Python only. Kept for the visit, so a page visited again still knows.
 * @type {Map<string, number>}
 */
const ranIn = new Map();

/**
 * Turn every .ember-cell of a page into a runnable cell.
 *
 * @param {ParentNode} root
 * @param {{ runtime: import("../runtime/runtime.js").Runtime, page: string } & ErrorHelp} context  Python, the page's
 *   address, and what a failure offers
 */
export function mountCells(root, { runtime, lesson, page, loadFinished }) {
  const holders = /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-cell"));
  /** @type {Array<() => Promise<boolean>>} each cell's run, in the page's order */
  const runners = [];
  /**
   * The cells above ``index`` that ran in a Python since replaced: what they made is gone (numbers from 1).
   * @param {number} index
   */
  const lostAbove = (index) =>
    runners
      .map((_, above) => above)
      .filter((above) => above < index && (ranIn.get(`${page}#${above}`) ?? runtime.restarts) < runtime.restarts);
  holders.forEach((holder, index) => {
    /**
     * @param {string} reason
     * @param {number[]} lost
     */
    const restartNote = (reason, lost) => afterRestart(reason, lost, runners, () => run.focus());
    /**
     * @param {string} reason
     * @param {number[]} lost
     */
    const lostNote = (reason, lost) => afterRestart(reason, lost, runners, () => run.focus(), true);
    const code = holder.querySelector("code")?.textContent ?? "";
    holder.replaceChildren();
    const run = el("button", { class: "md-button md-button--primary ember-run", type: "button" }, "Run");
    const stop = el("button", { class: "md-button ember-stop", type: "button", hidden: true }, "Stop");
    // Offered only when a stopped cell does not end (it ignores Stop, or loops in its clean-up).
    const restart = el("button", { class: "md-button ember-restart", type: "button", hidden: true }, "Restart Python");
    const status = el("span", { class: "ember-status", "aria-live": "polite" });
    // The output is not a live region: a cell that prints a thousand lines, or redraws its plot at every step of a
    // training, would be read out line by line. The status beside Run says, once, that the run ended.
    const output = el("div", { class: "ember-output" });
    const editorBox = el("div", { class: "ember-editor" });
    holder.append(editorBox, el("div", { class: "ember-toolbar" }, run, stop, restart, status), output);
    const view = cellEditor(editorBox, code.replace(/\n$/, ""), {
      onRun: () => execute(),
      label: `Example cell ${index + 1}: Python code`,
    });
    let stopping = false;

    /** @returns {Promise<boolean>} true when the cell ran to its end without an error */
    async function execute() {
      if (!run.hidden && run.disabled) return false;
      run.disabled = true;
      stop.hidden = false;
      output.replaceChildren();
      status.textContent = runtime.state === "ready" ? "running…" : "waiting for Python…";
      const started = performance.now();
      try {
        const live = el("div", { class: "ember-live" });
        output.append(live);
        // With reduced motion asked for, a live picture is drawn once, when the run ends, not at every step.
        /** @param {import("./cell-output.js").OutputItem} item */
        const onProgress = (item) => {
          if (!REDUCED_MOTION.matches) renderLive(live, item);
        };
        /** @param {string} prompt */
        const onAsk = (prompt) => askInPage(live, prompt);
        // Python lays pictures out for the output's width (their text keeps its size on a phone).
        const room = roomIn(output, 1, 100000);
        const payload = { page, lab: lesson, ...savedCode.work(), code: view.state.doc.toString(), room };
        const running = runtime.run(payload, onProgress, onAsk);
        ranIn.set(`${page}#${index}`, runtime.restarts);
        const result = await running;
        output.replaceChildren();
        await renderOutputs(output, result.outputs);
        if (result.error) showError(output, result.error, { lesson, loadFinished });
        const lost = result.error?.kind === PROBLEM.ERROR ? lostAbove(index) : [];
        // A name the cells above made may be what is missing: Python was restarted since they ran.
        if (lost.length)
          output.append(lostNote(`Python was restarted since example ${cellNames(lost)} above ran`, lost));
        status.textContent = result.error
          ? ""
          : `done in ${Math.round(performance.now() - started)} ms; its output is below`;
        holder.dataset.state = result.error ? "error" : "done";
        return !result.error;
      } catch (error) {
        const restarted = runtime.wasRestarted(error);
        output.append(
          restarted
            ? restartNote(error.message, lostAbove(index))
            : el("p", { class: "ember-error", text: String(error.message || error) }),
        );
        status.textContent = "";
        holder.dataset.state = restarted ? "restarted" : "error";
        return false;
      } finally {
        run.disabled = false;
        stop.hidden = true;
        stop.textContent = "Stop";
        stop.removeAttribute("aria-disabled");
        restart.hidden = true;
      }
    }
    runners.push(execute);

    run.addEventListener("click", execute);
    stop.addEventListener("click", async () => {
      if (stop.getAttribute("aria-disabled") === "true") return; // the first Stop is still being honoured
      if (stopping) {
        // Offered once the cell is slow to end: one more KeyboardInterrupt (its clean-up may be what loops).
        runtime.interrupt();
        status.textContent = "stopping: the cell was interrupted again…";
        return;
      }
      stopping = true;
      stop.setAttribute("aria-disabled", "true");
      status.textContent = runtime.canInterrupt ? "stopping: the cell is cleaning up…" : "stopping: restarting Python…";
      const how = await runtime.stop(() => {
        stop.removeAttribute("aria-disabled");
        stop.textContent = "Stop again";
        restart.hidden = false;
        status.textContent =
          "The cell has not stopped: it may be ignoring Stop. Wait, press Stop again, or restart Python " +
          "(what the cells made is lost; your code is kept).";
      });
      stopping = false;
      if (how === "interrupted") status.textContent = "stopped";
    });
    restart.addEventListener("click", () => runtime.restart("Stopped: Python was restarted"));
  });
}

/**
 * "cells 1, 2 and 4" (numbers from 1 for indexes from 0).
 *
 * @param {number[]} indexes
 */
function cellNames(indexes) {
  const names = indexes.map((index) => String(index + 1));
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `${names.length > 1 ? "cells" : "cell"} ${list}`;
}

/**
 * What a cell says when Python was restarted under it (or, ``since``, after the cells above ran). Where cells
 * above it had run in the Python that is gone, it names them (this cell may use what they made) and offers one
 * button that runs them again, in order; otherwise nothing above was lost, and running the cell again is all it
 * takes.
 *
 * @param {string} reason  why Python was restarted
 * @param {number[]} lost  the indexes of the cells above whose results are gone
 * @param {Array<() => Promise<boolean>>} runners  every cell's run, by index
 * @param {() => void} done  called once the cells above ran again (moves the focus to this cell's Run)
 * @param {boolean} [since]  the restart came before this run: the cell ran, and may have missed their names
 * @returns {HTMLElement}
 */
function afterRestart(reason, lost, runners, done, since = false) {
  // After a run that failed, its problem is already announced: this note is said more quietly.
  const box = el("div", { class: "ember-error ember-restarted", role: since ? "status" : "alert" });
  if (!lost.length) {
    box.append(el("p", { text: `${reason}. Your code is safe; run the cell again.` }));
    return box;
  }
  box.append(
    el("p", {
      text: since
        ? `${reason}, so what ${lost.length > 1 ? "they" : "it"} made (names and results) is gone, and this cell may need it.`
        : `${reason}. Your code is safe, but what example ${cellNames(lost)} above made (their names and ` +
          "results) was lost with it, and this cell may use it.",
    }),
  );
  const progress = el("p", { "aria-live": "polite" });
  const again = el(
    "button",
    {
      class: "md-button ember-run-above",
      type: "button",
      onclick: async () => {
        if (again.getAttribute("aria-disabled") === "true") return;
        again.setAttribute("aria-disabled", "true");
        for (const [step, index] of lost.entries()) {
          progress.textContent = `Running example cell ${index + 1} (${step + 1} of ${lost.length})…`;
          if (!(await runners[index]())) {
            progress.textContent =
              `Example cell ${index + 1} ended with a problem (its output says what), so the cells after it ` +
              "were not run.";
            again.removeAttribute("aria-disabled");
            return;
          }
        }
        again.remove();
        progress.textContent = `Example ${cellNames(lost)} ran again. Run this cell ${since ? "again " : ""}when you are ready.`;
        done();
      },
    },
    `Run ${cellNames(lost)} again`,
  );
  box.append(el("div", { class: "ember-toolbar" }, again), progress);
  return box;
}

/**
 * An answer box for input() in a cell (its prompt is already printed): resolves with the text sent.
 *
 * @param {Element} target
 * @param {string} prompt
 * @returns {Promise<string>}
 */
function askInPage(target, prompt) {
  return new Promise((resolve) => {
    const field = el("input", {
      type: "text",
      class: "ember-input-field",
      "aria-label": `Your answer to: ${prompt.trim() || "input()"}`,
    });
    const send = el("button", { class: "md-button", type: "submit" }, "Send");
    const form = el(
      "form",
      { class: "ember-input" },
      el("span", { text: "input() waits for your answer:" }),
      field,
      send,
    );
    /** @param {Event} event */
    const done = (event) => {
      event?.preventDefault();
      form.remove();
      resolve(field.value);
    };
    form.addEventListener("submit", done);
    target.append(form);
    field.focus();
  });
}

/**
 * What the page offers for a problem from a cell, chosen by its kind (PROBLEM, protocol.js).
 *
 * @param {Element} output
 * @param {import("../runtime/protocol.js").Problem} error
 * @param {ErrorHelp} help
 */
function showError(output, error, { lesson, loadFinished }) {
  const box = el(
    "div",
    { class: "ember-error", role: "alert", "data-kind": error.kind },
    el("p", { text: error.message }),
  );
  const gapLesson = error.gap ? lessonOf(error.gap) : null;
  const notWritten = error.kind === PROBLEM.NOT_WRITTEN;
  if ((notWritten || error.kind === PROBLEM.MARKER) && gapLesson === lesson) {
    box.append(
      el("p", {
        text: notWritten
          ? `This cell needs gap ${error.gap}, which you write in this lesson's lab below. ` +
            "Run the cell again once its checks pass."
          : `Fix gap ${error.gap} in the lab below, then run the cell again.`,
      }),
    );
  } else if (notWritten && loadFinished) {
    box.append(
      el("p", { text: "This cell needs a piece of your ember from an earlier lesson that you have not written yet." }),
    );
    box.append(
      el(
        "button",
        {
          class: "md-button",
          type: "button",
          onclick: async () => {
            await loadFinished();
            box.append(el("p", { text: "Loaded. Run the cell again." }));
          },
        },
        "Load the finished pieces of earlier lessons",
      ),
    );
  }
  output.append(box);
}
