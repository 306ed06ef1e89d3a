// @ts-check
// CodeMirror 6 editors: free ones for example cells, and the lab's, where only this lesson's gaps
// can change and everything else is visibly read-only.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { Annotation, EditorState, RangeSetBuilder, StateEffect, StateField, Transaction } from "@codemirror/state";
import { Decoration, EditorView, keymap, lineNumbers, ViewPlugin } from "@codemirror/view";
import { tags } from "@lezer/highlight";

/**
 * @typedef {import("@codemirror/state").Text} Text
 * @typedef {import("@codemirror/view").DecorationSet} DecorationSet
 * @typedef {import("@codemirror/view").ViewUpdate} ViewUpdate
 */

// Colours come from the site theme's own variables, so light and dark follow the palette switch.
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: "var(--md-code-hl-keyword-color)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--md-code-hl-string-color)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--md-code-hl-number-color)" },
  { tag: tags.comment, color: "var(--md-code-hl-comment-color)", fontStyle: "italic" },
  {
    tag: [tags.function(tags.variableName), tags.function(tags.propertyName)],
    color: "var(--md-code-hl-function-color)",
  },
  { tag: [tags.definition(tags.variableName), tags.className], color: "var(--md-code-hl-name-color)" },
  { tag: tags.operator, color: "var(--md-code-hl-operator-color)" },
  { tag: tags.punctuation, color: "var(--md-code-hl-punctuation-color)" },
  { tag: [tags.self, tags.constant(tags.variableName)], color: "var(--md-code-hl-constant-color)" },
]);

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--md-code-bg-color)", color: "var(--md-code-fg-color)", fontSize: "0.8rem" },
  ".cm-content": { fontFamily: "var(--md-code-font-family, monospace)", caretColor: "var(--md-code-fg-color)" },
  ".cm-gutters": { backgroundColor: "var(--md-code-bg-color)", color: "var(--ember-gutter-color)", border: "none" },
  "&.cm-focused": { outline: "2px solid var(--md-accent-fg-color)" },
  // A gap's lines are told by their tint and a bar at their left edge, never by fading the rest: faded code
  // loses its contrast (see ember.css).
  ".cm-ember-gap": { backgroundColor: "var(--ember-gap-bg)", boxShadow: "inset 3px 0 0 var(--md-accent-fg-color)" },
  ".cm-ember-marker": { backgroundColor: "var(--ember-marker-bg)" },
});

const MAC = /Mac|iPhone|iPad/.test(globalThis.navigator?.platform || "");
let notes = 0;

/**
 * Under an editor, in words, its keys: Tab indents as a coder expects, Escape then Tab leaves (CodeMirror's
 * convention: after Escape, the next Tab within two seconds moves the focus on), and Ctrl+Enter runs. The
 * editor's content is described by it, so a screen reader says it on entering. Answers the note's id.
 *
 * @param {Element} parent
 * @param {string} runs  what Ctrl+Enter does
 * @returns {string}
 */
function keysNote(parent, runs) {
  const note = document.createElement("p");
  note.className = "ember-keys";
  note.id = `ember-keys-${++notes}`;
  note.textContent = `Tab indents. To leave the editor, press Esc, then Tab. ${MAC ? "⌘" : "Ctrl"}+Enter ${runs}.`;
  parent.after(note);
  return note.id;
}

/**
 * What the editable text of every editor says of itself: a name, its keys, and no phone keyboard's corrections.
 *
 * @param {string} label
 * @param {string} noteId
 */
function contentAttributes(label, noteId) {
  return EditorView.contentAttributes.of({
    "aria-label": label,
    "aria-describedby": noteId,
    tabindex: "0",
    autocapitalize: "off",
    autocorrect: "off",
    spellcheck: "false",
    translate: "no",
  });
}

const TABBABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/**
 * The first element the keyboard can reach after (or, backwards, before) ``box``, outside it.
 *
 * @param {Element} box
 * @param {boolean} backwards
 * @returns {HTMLElement | undefined}
 */
function nextStop(box, backwards) {
  const stops = [...document.querySelectorAll(/** @type {"button"} */ (TABBABLE))].filter(
    (e) => !box.contains(e) && !e.disabled && e.getClientRects().length && !e.closest("[hidden], [inert]"),
  );
  /** @param {Element} e */
  const after = (e) => box.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING;
  return backwards ? stops.filter((e) => !after(e)).at(-1) : stops.find(after);
}

/**
 * Escape, then Tab (or Shift+Tab) within two seconds, leaves the editor for the next (or the previous) control,
 * as CodeMirror's convention has it. The editor moves the focus itself: the browser would start from the line
 * the cursor was on, which the editor may have drawn anew meanwhile, and then from somewhere else on the page.
 * It listens on the editor's outer box, before CodeMirror's own handling of the keys.
 *
 * @template {EditorView} V
 * @param {V} view
 * @returns {V}
 */
function leaveByEscapeThenTab(view) {
  let escaped = 0;
  view.dom.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Escape") {
        escaped = Date.now();
        return;
      }
      if (event.key !== "Tab" || Date.now() - escaped > 2000) {
        escaped = 0;
        return;
      }
      escaped = 0;
      const stop = nextStop(view.dom, event.shiftKey);
      if (!stop) return;
      event.preventDefault();
      stop.focus();
    },
    true,
  );
  return view;
}

/**
 * What every editor has: history, Python, four-space indents, the theme's colours, and the keys.
 *
 * @param {() => void} onRun  for Ctrl/Cmd+Enter
 */
function base(onRun) {
  return [
    history(),
    python(),
    indentUnit.of("    "),
    syntaxHighlighting(highlight),
    theme,
    keymap.of([
      {
        key: "Mod-Enter",
        run: () => {
          onRun();
          return true;
        },
      },
      indentWithTab,
      ...defaultKeymap,
      ...historyKeymap,
    ]),
  ];
}

const HANG = 4; // a wrapped line's continuation starts this many characters right of the line's own indentation

/**
 * The line decorations that hang each visible line's wrapped parts under its own indentation, and further in.
 *
 * @param {EditorView} view
 * @returns {DecorationSet}
 */
function hangingLines(view) {
  /** @type {RangeSetBuilder<Decoration>} */
  const builder = new RangeSetBuilder();
  for (const { from, to } of view.visibleRanges) {
    for (let at = from; at <= to; ) {
      const line = view.state.doc.lineAt(at);
      const indent = line.text.length - line.text.trimStart().length + HANG;
      builder.add(
        line.from,
        line.from,
        Decoration.line({
          attributes: {
            style: `padding-left: calc(${indent}ch + 6px); text-indent: -${indent}ch`,
          },
        }),
      );
      at = line.to + 1;
    }
  }
  return builder.finish();
}

/**
 * Long lines wrap, and a wrapped part hangs under its line's indentation and further in, so that Python's blocks
 * still read as blocks on a phone (a continuation at the left edge would look like a line of its own).
 */
const wrapHanging = [
  EditorView.lineWrapping,
  ViewPlugin.fromClass(
    class {
      /** @param {EditorView} view */
      constructor(view) {
        this.decorations = hangingLines(view);
      }
      /** @param {ViewUpdate} update */
      update(update) {
        if (update.docChanged || update.viewportChanged) this.decorations = hangingLines(update.view);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  ),
];

/**
 * An editor for an example cell: everything editable.
 *
 * @param {HTMLElement} parent
 * @param {string} code
 * @param {{ onRun: () => void, label: string }} options  Ctrl/Cmd+Enter's action, and the editor's name
 * @returns {EditorView}
 */
export function cellEditor(parent, code, { onRun, label }) {
  return leaveByEscapeThenTab(
    new EditorView({
      parent,
      state: EditorState.create({
        doc: code,
        // A line longer than the column wraps instead of running out of sight: the column holds about 70 characters
        // of code at a desktop's width and 40 on a phone. The lab's file does not wrap: its lines are the file's.
        extensions: [base(onRun), wrapHanging, contentAttributes(label, keysNote(parent, "runs the cell"))],
      }),
    }),
  );
}

// --- the lab's gaps ------------------------------------------------------------------------
// Python says where each gap lies (its marker lines); the editor keeps those places as the learner
// types by mapping them through every change, and never reads the markers itself.

/**
 * Where a gap lies in a file, as Python says: its id and the lines of its opening and closing markers.
 * @typedef {import("../runtime/protocol.js").GapPlace} GapPlace
 *
 * A gap's body in an editor, from the first body line's start to the last one's end.
 * @typedef {{ id: string, editable: boolean, from: number, to: number }} Span
 *
 * The lab's editor, which keeps its gaps' spans in a field of its state.
 * @typedef {EditorView & { emberGaps: StateField<Span[]> }} LabView
 */

/** Replace the gaps the editor knows (with a rebuilt module). */
const setGaps = /** @type {import("@codemirror/state").StateEffectType<GapPlace[]>} */ (StateEffect.define());
/** Make gaps read-only (their ids): another tab, on a newer release of the course, saved them. */
const lockGaps = /** @type {import("@codemirror/state").StateEffectType<string[]>} */ (StateEffect.define());

/**
 * Spans of the gap bodies: [{id, editable, from, to}], from the first body line's start to the last one's end.
 *
 * @param {Text} doc
 * @param {GapPlace[]} gaps
 * @param {string[]} gapIds  the gaps that can be edited
 * @returns {Span[]}
 */
function spansFrom(doc, gaps, gapIds) {
  return gaps.map((gap) => ({
    id: gap.id,
    editable: gapIds.includes(gap.id),
    from: doc.line(gap.open_line + 1).from,
    to: doc.line(gap.close_line - 1).to,
  }));
}

/**
 * The field that keeps the gaps' spans as the learner types.
 *
 * @param {string[]} gapIds  the gaps that can be edited
 * @param {GapPlace[]} initial
 * @returns {StateField<Span[]>}
 */
function gapField(gapIds, initial) {
  return StateField.define({
    create: (state) => spansFrom(state.doc, initial, gapIds),
    update(spans, tr) {
      for (const effect of tr.effects) {
        if (effect.is(setGaps)) return spansFrom(tr.state.doc, effect.value, gapIds);
        if (effect.is(lockGaps))
          spans = spans.map((span) => ({ ...span, editable: span.editable && !effect.value.includes(span.id) }));
      }
      if (!tr.docChanged) return spans;
      // Text typed at either edge of a body belongs to the body.
      return spans.map((span) => ({
        ...span,
        from: tr.changes.mapPos(span.from, -1),
        to: tr.changes.mapPos(span.to, 1),
      }));
    },
  });
}

/**
 * Every line's look: in an editable gap, one of its markers, or read-only.
 *
 * @param {EditorState} state
 * @param {StateField<Span[]>} field
 * @returns {DecorationSet}
 */
function lineDecorations(state, field) {
  /** @type {RangeSetBuilder<Decoration>} */
  const builder = new RangeSetBuilder();
  const spans = state.field(field).filter((span) => span.editable);
  const kinds = new Map(); // line number -> class
  for (const span of spans) {
    const first = state.doc.lineAt(span.from).number;
    const last = state.doc.lineAt(span.to).number;
    kinds.set(first - 1, "cm-ember-marker");
    kinds.set(last + 1, "cm-ember-marker");
    for (let number = first; number <= last; number++) kinds.set(number, "cm-ember-gap");
  }
  for (let number = 1; number <= state.doc.lines; number++) {
    const line = state.doc.line(number);
    builder.add(line.from, line.from, Decoration.line({ class: kinds.get(number) || "cm-ember-readonly" }));
  }
  return builder.finish();
}

/**
 * The lab's editor: the whole module, with only the bodies of ``gapIds`` editable.
 * ``gaps`` says where every gap lies ([{id, open_line, close_line}], from Python). A change is
 * accepted only if every part of it lies inside one editable body. ``onChange`` receives the
 * exact text of every editable gap after each change the learner makes.
 *
 * @param {HTMLElement} parent
 * @param {string} code
 * @param {{
 *   gaps: GapPlace[], gapIds: string[], onChange: (texts: Record<string, string>) => void, onRun: () => void,
 *   label: string,
 * }} options
 * @returns {LabView}
 */
export function labEditor(parent, code, { gaps, gapIds, onChange, onRun, label }) {
  const field = gapField(gapIds, gaps);
  const decorations = StateField.define({
    create: (state) => lineDecorations(state, field),
    update: (value, tr) =>
      tr.docChanged || tr.effects.some((e) => e.is(setGaps) || e.is(lockGaps))
        ? lineDecorations(tr.state, field)
        : value,
    provide: (decorationField) => EditorView.decorations.from(decorationField),
  });
  const onlyInGaps = EditorState.changeFilter.of((tr) => {
    if (!tr.docChanged) return true;
    const spans = tr.startState.field(field).filter((span) => span.editable);
    let allowed = true;
    tr.changes.iterChangedRanges((from, to) => {
      if (!spans.some((span) => from >= span.from && to <= span.to)) allowed = false;
    });
    return allowed;
  });
  const view = /** @type {LabView} */ (
    new EditorView({
      parent,
      state: EditorState.create({
        doc: code,
        extensions: [
          base(onRun),
          lineNumbers(),
          field,
          decorations,
          onlyInGaps,
          contentAttributes(label, keysNote(parent, "runs the checks")),
          EditorView.updateListener.of((update) => {
            const typed = update.transactions.some((tr) => tr.docChanged && !tr.annotation(rebuilt));
            if (typed) onChange(gapTexts(/** @type {LabView} */ (update.view)));
          }),
        ],
      }),
    })
  );
  view.emberGaps = field;
  return leaveByEscapeThenTab(view);
}

/**
 * The exact text of every editable gap: {id: text}.
 *
 * @param {LabView} view
 * @returns {Record<string, string>}
 */
export function gapTexts(view) {
  /** @type {Record<string, string>} */
  const texts = {};
  for (const span of view.state.field(view.emberGaps)) {
    if (span.editable) texts[span.id] = view.state.doc.sliceString(span.from, span.to);
  }
  return texts;
}

/** Marks a change that rebuilt the module: it is not the learner's typing, so it is not saved. */
const rebuilt = /** @type {import("@codemirror/state").AnnotationType<boolean>} */ (Annotation.define());

/**
 * Replace an editor's whole text and gaps (when the module is rebuilt), bypassing the gap filter.
 *
 * @param {LabView} view
 * @param {string} text
 * @param {GapPlace[]} gaps
 */
export function replaceText(view, text, gaps) {
  view.dispatch({
    changes: { from: 0, to: view.state.doc.length, insert: text },
    filter: false,
    annotations: rebuilt.of(true),
  });
  view.dispatch({ effects: setGaps.of(gaps) });
}

/**
 * Put other texts in some of an editor's gaps ({id: text}), as another tab wrote them: only the part of each that
 * differs is replaced, so the cursor stays where it is (in the same gap, the same place in the text around it),
 * and Undo undoes only the learner's own typing. Answers whether anything changed.
 *
 * @param {LabView} view
 * @param {Record<string, string>} texts
 * @returns {boolean}
 */
export function setGapTexts(view, texts) {
  const changes = [];
  for (const { id, from, to } of view.state.field(view.emberGaps)) {
    if (!(id in texts)) continue;
    const old = view.state.doc.sliceString(from, to);
    const text = texts[id];
    if (old === text) continue;
    let start = 0;
    while (start < old.length && start < text.length && old[start] === text[start]) start++;
    let end = 0;
    while (end < old.length - start && end < text.length - start && old.at(-1 - end) === text.at(-1 - end)) end++;
    changes.push({ from: from + start, to: to - end, insert: text.slice(start, text.length - end) });
  }
  if (!changes.length) return false;
  view.dispatch({
    changes,
    filter: false,
    annotations: [rebuilt.of(true), Transaction.addToHistory.of(false)],
  });
  return true;
}

/**
 * Make gaps of an editor read-only, with the look of the rest of the file.
 *
 * @param {LabView} view
 * @param {string[]} gapIds
 */
export function lockGapsOf(view, gapIds) {
  view.dispatch({ effects: lockGaps.of(gapIds) });
}

/**
 * @param {LabView} view
 * @param {string} gapId
 * @returns {Span | undefined}
 */
function span(view, gapId) {
  return view.state.field(view.emberGaps).find((item) => item.id === gapId);
}

/**
 * Move the cursor to a line of a gap (its first by default) and scroll it into view.
 *
 * @param {LabView} view
 * @param {string} gapId
 * @param {number} [line]  1-based, within the gap
 */
export function focusGap(view, gapId, line = 1) {
  const found = span(view, gapId);
  if (!found) return;
  const first = view.state.doc.lineAt(found.from).number;
  const last = view.state.doc.lineAt(found.to).number;
  const at = view.state.doc.line(Math.min(last, first + Math.max(0, line - 1))).from;
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}

/**
 * Scroll the editor's own box so that a gap's opening marker is near its top, without taking focus
 * and without moving the page (the learner may be reading far above the lab).
 *
 * @param {LabView} view
 * @param {string} gapId
 */
export function scrollToGap(view, gapId) {
  const found = span(view, gapId);
  if (!found) return;
  view.requestMeasure({
    read: () => view.lineBlockAt(found.from).top,
    write: (top) => {
      view.scrollDOM.scrollTop = Math.max(0, top - 60);
    },
  });
}
