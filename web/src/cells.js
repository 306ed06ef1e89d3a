// Example cells: editable code, Run (or Ctrl/Cmd+Enter), Stop, and the outputs drawn below.
import { cellEditor } from "./editor.js";
import { el, renderLive, renderOutputs } from "./render.js";
import * as storage from "./storage.js";

/** Turn every .ember-cell of a page into a runnable cell. */
export function mountCells(root, { runtime, lesson, page, loadFinished }) {
  root.querySelectorAll(".ember-cell").forEach((holder, index) => {
    const code = holder.querySelector("code")?.textContent ?? "";
    holder.replaceChildren();
    const run = el("button", { class: "md-button md-button--primary ember-run", type: "button" }, "Run");
    const stop = el("button", { class: "md-button ember-stop", type: "button", hidden: true }, "Stop");
    const status = el("span", { class: "ember-status", "aria-live": "polite" });
    const output = el("div", { class: "ember-output", "aria-live": "polite" });
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
        const onProgress = (item) => renderLive(live, item);
        const payload = { page, lab: lesson, pieces: storage.pieces(), code: view.state.doc.toString() };
        const result = await runtime.run(payload, onProgress);
        output.replaceChildren();
        await renderOutputs(output, result.outputs);
        if (result.error) showError(output, result.error, { lesson, loadFinished });
        status.textContent = result.error ? "" : `done in ${Math.round(performance.now() - started)} ms`;
        holder.dataset.state = result.error ? "error" : "done";
      } catch (error) {
        const restarted = runtime.wasRestarted(error);
        output.append(el("p", { class: "ember-error", text: restarted ? `${error.message}. Your code is safe; run the cell again.` : String(error.message || error) }));
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

function showError(output, error, { lesson, loadFinished }) {
  const box = el("div", { class: "ember-error", role: "alert" }, el("p", { text: error.message }));
  const gapLesson = error.gap ? error.gap.split(".")[0] : null;
  if (error.needs_piece && gapLesson === lesson) {
    box.append(el("p", { text: `This cell needs gap ${error.gap}, which you write in this lesson's lab below. Run the cell again once its checks pass.` }));
  } else if (error.needs_piece && loadFinished) {
    box.append(el("p", { text: "This cell needs a piece of your ember from an earlier lesson that you have not written yet." }));
    box.append(el("button", { class: "md-button", type: "button", onclick: async () => {
      await loadFinished();
      box.append(el("p", { text: "Loaded. Run the cell again." }));
    } }, "Load the finished pieces of earlier lessons"));
  }
  output.append(box);
}
