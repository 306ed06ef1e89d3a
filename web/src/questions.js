// Multiple-choice questions with feedback for every option. They need no Python, so they work
// from the moment the page is shown; the learner's answers are remembered.
import { el } from "./render.js";
import * as storage from "./storage.js";

/** Turn every .ember-question placeholder of a page into a question. */
export function mountQuestions(root, course) {
  root.querySelectorAll(".ember-question").forEach((holder) => {
    const key = holder.dataset.question; // "L10.bfs"
    const [lessonId, questionId] = key.split(".");
    const question = course.lessons[lessonId].questions.find((q) => q.id === questionId);
    const name = `q-${key.replace(".", "-")}`;
    const feedback = el("div", { class: "ember-feedback", "aria-live": "polite" });
    const explain = el("p", { class: "ember-explain", hidden: true, text: question.explain });
    const fieldset = el("fieldset", { class: "ember-options" }, el("legend", { text: question.prompt }));
    for (const option of question.options) {
      const input = el("input", { type: "radio", name, value: option.id, id: `${name}-${option.id}` });
      input.addEventListener("change", () => choose(option.id, true));
      fieldset.append(el("label", { for: input.id, class: "ember-option" }, input, el("span", { text: option.text })));
    }
    holder.replaceChildren(fieldset, feedback, explain);

    function choose(optionId, save) {
      const option = question.options.find((o) => o.id === optionId);
      if (!option) return;
      const correct = optionId === question.answer;
      feedback.replaceChildren(el("p", { class: correct ? "ember-right" : "ember-wrong" },
        el("strong", { text: correct ? "Right. " : "Not quite. " }), option.feedback));
      holder.dataset.answered = correct ? "right" : "wrong";
      explain.hidden = false;
      if (save) storage.saveAnswer(key, optionId, correct);
    }

    const saved = storage.answers()[key];
    if (saved) {
      const input = fieldset.querySelector(`input[value="${CSS.escape(saved.option)}"]`);
      if (input) input.checked = true;
      choose(saved.option, false);
    }
  });
}
