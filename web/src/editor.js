// CodeMirror 6 editors: free ones for example cells, and the lab's, where only this lesson's gaps
// can change and everything else is visibly read-only.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { Annotation, EditorState, RangeSetBuilder, StateField } from "@codemirror/state";
import { Decoration, EditorView, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";

import { findGaps } from "./gaps.js";

// Colours come from the site theme's own variables, so light and dark follow the palette switch.
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: "var(--md-code-hl-keyword-color)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--md-code-hl-string-color)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--md-code-hl-number-color)" },
  { tag: tags.comment, color: "var(--md-code-hl-comment-color)", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: "var(--md-code-hl-function-color)" },
  { tag: [tags.definition(tags.variableName), tags.className], color: "var(--md-code-hl-name-color)" },
  { tag: tags.operator, color: "var(--md-code-hl-operator-color)" },
  { tag: tags.punctuation, color: "var(--md-code-hl-punctuation-color)" },
  { tag: [tags.self, tags.constant(tags.variableName)], color: "var(--md-code-hl-constant-color)" },
]);

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--md-code-bg-color)", color: "var(--md-code-fg-color)", fontSize: "0.8rem" },
  ".cm-content": { fontFamily: "var(--md-code-font-family, monospace)", caretColor: "var(--md-code-fg-color)" },
  ".cm-gutters": { backgroundColor: "var(--md-code-bg-color)", color: "var(--md-default-fg-color--lighter)", border: "none" },
  "&.cm-focused": { outline: "2px solid var(--md-accent-fg-color)" },
  ".cm-ember-readonly": { opacity: "0.62" },
  ".cm-ember-gap": { backgroundColor: "var(--ember-gap-bg)" },
  ".cm-ember-marker": { backgroundColor: "var(--ember-marker-bg)", opacity: "0.9" },
});

function base(onRun) {
  return [
    history(),
    python(),
    indentUnit.of("    "),
    syntaxHighlighting(highlight),
    theme,
    keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true) }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
  ];
}

/** An editor for an example cell: everything editable. */
export function cellEditor(parent, code, { onRun, label }) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: code,
      extensions: [base(onRun), EditorView.contentAttributes.of({ "aria-label": label })],
    }),
  });
}

/** Editable spans of the document: the bodies of the gaps whose ids are listed. */
function editableSpans(doc, gapIds) {
  return findGaps(doc.toString()).filter((gap) => gapIds.includes(gap.id));
}

function lineDecorations(state, gapIds) {
  const builder = new RangeSetBuilder();
  const spans = findGaps(state.doc.toString());
  for (let number = 1; number <= state.doc.lines; number++) {
    const line = state.doc.line(number);
    const gap = spans.find((span) => number >= span.openLine && number <= span.closeLine);
    let cls = "cm-ember-readonly";
    if (gap && gapIds.includes(gap.id)) {
      cls = number === gap.openLine || number === gap.closeLine ? "cm-ember-marker" : "cm-ember-gap";
    }
    builder.add(line.from, line.from, Decoration.line({ class: cls }));
  }
  return builder.finish();
}

/**
 * The lab's editor: the whole module, with only the bodies of ``gapIds`` editable.
 * A change is accepted only if every part of it lies inside one editable body.
 */
export function labEditor(parent, code, { gapIds, onChange, onRun, label }) {
  const decorations = StateField.define({
    create: (state) => lineDecorations(state, gapIds),
    update: (value, tr) => (tr.docChanged ? lineDecorations(tr.state, gapIds) : value),
    provide: (field) => EditorView.decorations.from(field),
  });
  const onlyInGaps = EditorState.changeFilter.of((tr) => {
    if (!tr.docChanged) return true;
    const spans = editableSpans(tr.startState.doc, gapIds);
    let allowed = true;
    tr.changes.iterChangedRanges((from, to) => {
      if (!spans.some((span) => from >= span.from && to <= span.to)) allowed = false;
    });
    return allowed;
  });
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: code,
      extensions: [
        base(onRun),
        lineNumbers(),
        decorations,
        onlyInGaps,
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          const typed = update.transactions.some((tr) => tr.docChanged && !tr.annotation(rebuilt));
          if (typed) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
}

/** Marks a change that rebuilt the module: it is not the learner's typing, so it is not saved. */
const rebuilt = Annotation.define();

/** Replace an editor's whole text (used when the module is rebuilt), bypassing the gap filter. */
export function replaceText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, filter: false, annotations: rebuilt.of(true) });
}

/** Move the cursor to the first line of a gap and scroll it into view. */
export function focusGap(view, gapId) {
  const gap = findGaps(view.state.doc.toString()).find((item) => item.id === gapId);
  if (!gap) return;
  view.dispatch({ selection: { anchor: gap.from }, scrollIntoView: true });
  view.focus();
}

/** Scroll an editor so that a gap's opening marker is near the top, without taking focus. */
export function scrollToGap(view, gapId) {
  const gap = findGaps(view.state.doc.toString()).find((item) => item.id === gapId);
  if (gap) view.dispatch({ effects: EditorView.scrollIntoView(gap.from, { y: "start", yMargin: 60 }) });
}
