// The records of the learner's saved state (work/store.js keeps them in localStorage, checked when read), which
// requests also carry to Python (labs/work/work_file.py and work_merge.py). Their fields and kinds are stated once
// in labs/data/work_records.json, which both sides check them by (work/records.js, labs/work/records.py): a new
// field goes there and here.

/**
 * A gap's piece: its code, the course version and release it was written under, when it was saved, and whether it
 * is the exact text typed (older versions saved dedented bodies); rev names this write of it, after the one it
 * replaced (so a tab can tell whether a piece was written on top of what it had); origin: "finished" for a finished
 * piece a work file brought in, else "own".
 */
export interface Piece {
  code: string;
  version?: string;
  release?: number;
  saved?: number;
  exact?: boolean;
  rev?: string;
  after?: string;
  origin?: string;
}

/**
 * A gap's text typed in one tab while another tab's change to the gap had not reached it: kept beside the stored
 * piece until the learner chooses. tab: the tab that typed it.
 */
export interface Rival {
  code: string;
  tab: string;
  saved: number;
}

/**
 * A question's saved answer: the last option picked and whether it was right; everCorrect: picked right before the
 * answer was shown; tried: the wrong options picked; revealed: the learner asked for the answer.
 */
export interface Answer {
  option: string;
  correct: boolean;
  everCorrect?: boolean;
  tried?: string[];
  revealed?: boolean;
}

/** A lesson's last check run: how many claims held, of how many, and when. */
export interface Progress {
  passed: number;
  total: number;
  done: boolean;
  at?: number;
}

/**
 * Everything stored: pieces by gap id, answers by question id, progress by lesson id, the last lesson visited, the
 * learner's seed, and the gaps typed in two tabs at once (only while there are any).
 */
export interface State {
  pieces: Record<string, Piece>;
  answers: Record<string, Answer>;
  progress: Record<string, Progress>;
  last: string | null;
  seed: string | null;
  conflicts?: Record<string, Rival[]>;
}

/**
 * The changes of a work file read into the saved state (labs/work/work_merge.py's `merge`): pieces as exact
 * texts with their origins, answers and progress as merged, and the seed and last lesson where they change (null
 * keeps the state's).
 */
export interface ImportChanges {
  pieces: Record<string, { code: string; origin: string }>;
  answers: Record<string, Answer>;
  progress: Record<string, Progress>;
  seed: string | null;
  last: string | null;
}
