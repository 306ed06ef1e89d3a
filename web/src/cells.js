// @ts-check
// Example cells: editable code, Run (or Ctrl/Cmd+Enter), Stop, and the outputs drawn below.

import { renderLive, renderOutputs, roomIn } from "./cell-output.js";
import { el } from "./dom.js";
import { cellEditor } from "./editor.js";
import { lessonOf } from "./ids.js";
import { PROBLEM } from "./protocol.js";
import * as storage from "./storage.js";

const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)");

/**
 * What a cell's failure offers: the page's lesson, and a way to load earlier lessons' finished pieces (null
 * where there are none to load).
 * @typedef {{ lesson: string, loadFinished: (() => Promise<unknown>) | null }} ErrorHelp
 */

/**
 * Turn every .ember-cell of a page into a runnable cell.
 *
 * @param {ParentNode} root
 * @param {{ runtime: import("./runtime.js").Runtime, page: string } & ErrorHelp} context  Python, the page's
 *   address, and what a failure offers
 */
export function mountCells(root, { runtime, lesson, page, loadFinished }) {
  const holders = /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-cell"));
  holders.forEach((holder, index) => {
    const code = holder.querySelector("code")?.textContent ?? "";
    holder.replaceChildren();
    const run = el("button", { class: "md-button md-button--primary ember-run", type: "button" }, "Run");
    const stop = el("button", { class: "md-button ember-stop", type: "button", hidden: true }, "Stop");
    const status = el("span", { class: "ember-status", "aria-live": "polite" });
    // The output is not a live region: a cell that prints a thousand lines, or redraws its plot at every step of a
    // training, would be read out line by line. The status beside Run says, once, that the run ended.
    const output = el("div", { class: "ember-output" });
    const editorBox = el("div", { class: "ember-editor" });
    holder.append(editorBox, el("div", { class: "ember-toolbar" }, run, stop, status), output);
    const view = cellEditor(editorBox, code.replace(/\n$/, ""), {
      onRun: () => execute(),
      label: `Example cell ${index + 1}: Python code`,
    });

    async function execute() {
      if (!run.hidden && run.disabled) return;
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
        const payload = { page, lab: lesson, ...storage.work(), code: view.state.doc.toString(), room };
        const result = await runtime.run(payload, onProgress, onAsk);
        output.replaceChildren();
        await renderOutputs(output, result.outputs);
        if (result.error) showError(output, result.error, { lesson, loadFinished });
        status.textContent = result.error
          ? ""
          : `done in ${Math.round(performance.now() - started)} ms; its output is below`;
        holder.dataset.state = result.error ? "error" : "done";
      } catch (error) {
        const restarted = runtime.wasRestarted(error);
        output.append(
          el("p", {
            class: "ember-error",
            text: restarted
              ? `${error.message}. Your code is safe; run the cell again.`
              : String(error.message || error),
          }),
        );
        status.textContent = "";
        holder.dataset.state = restarted ? "restarted" : "error";
      } finally {
        run.disabled = false;
        stop.hidden = true;
      }
    }

    run.addEventListener("click", execute);
    stop.addEventListener("click", async () => {
      status.textContent = "stopping…";
      const how = await runtime.stop();
      if (how === "interrupted") status.textContent = "stopped";
    });
  });
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
 * @param {import("./protocol.js").Problem} error
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
