// The learner's work in the browser's localStorage: pieces per gap id, answers, progress.
// Every piece is stored with the course version it was written under, so a new version of the
// course never drops it: gap ids stay stable, and the code moves along with its id.

const KEY = "ember:v1";

function empty() {
  return { pieces: {}, answers: {}, progress: {}, last: null };
}

function read() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    return saved && typeof saved === "object" ? { ...empty(), ...saved } : empty();
  } catch {
    return empty();
  }
}

function write(state) {
  localStorage.setItem(KEY, JSON.stringify(state));
}

function update(change) {
  const state = read();
  change(state);
  write(state);
  window.dispatchEvent(new CustomEvent("ember:storage"));
}

/** The learner's pieces as {gap id: code}. */
export function pieces() {
  const result = {};
  for (const [gap, entry] of Object.entries(read().pieces)) result[gap] = entry.code;
  return result;
}

/** Save the learner's pieces ({gap: code}); null for a gap forgets its piece. */
export function savePieces(changes, version) {
  update((state) => {
    for (const [gap, code] of Object.entries(changes)) {
      if (code === null) delete state.pieces[gap];
      else state.pieces[gap] = { code, version, saved: Date.now() };
    }
  });
}

export function answers() {
  return read().answers;
}

export function saveAnswer(question, option, correct) {
  update((state) => {
    const before = state.answers[question] || {};
    state.answers[question] = { option, correct, everCorrect: Boolean(before.everCorrect || correct) };
  });
}

export function progress() {
  return read().progress;
}

/** Record a lesson's last check run: how many claims held. */
export function saveProgress(lesson, passed, total) {
  update((state) => {
    state.progress[lesson] = { passed, total, done: passed === total && total > 0, at: Date.now() };
  });
}

export function lastLesson() {
  return read().last;
}

export function visit(lesson) {
  update((state) => {
    state.last = lesson;
    state.progress[lesson] = state.progress[lesson] || { passed: 0, total: 0, done: false, at: Date.now() };
  });
}

/** Forget everything: pieces, answers and progress. */
export function resetAll() {
  localStorage.removeItem(KEY);
  window.dispatchEvent(new CustomEvent("ember:storage"));
}
