// The course's data as the page reads it: assets/gen/course.json, written by labs/frontends/website.py's course_data.

/** One option of a multiple-choice question, and what the learner reads after picking it. */
export interface Option {
  id: string;
  text: string;
  feedback: string;
}

/** A multiple-choice question: its options, the id of the right one, and the explanation it opens. */
export interface Question {
  id: string;
  prompt: string;
  answer: string;
  explain: string;
  options: Option[];
}

/** A lesson: its gaps and claims (checks) by id, its questions, and its page's address (none in preparation). */
export interface Lesson {
  id: string;
  number: number;
  title: string;
  question: string;
  can_now: string;
  url: string | null;
  gaps: string[];
  earlier_gaps: boolean;
  claims: { key: string; name: string }[];
  questions: Question[];
}

/**
 * A gap of the learner's files: the lesson it belongs to, its title, its hints, its file ("scalar.py"), and the
 * gaps of later lessons that reopen the same place (their own versions of it), in order.
 */
export interface Gap {
  lesson: string;
  title: string;
  hints: string[];
  file: string;
  later: string[];
}

/**
 * The whole course: its version (a digest of its Python) and release (which orders builds), the largest file the
 * page reads as the learner's work (bytes), the lessons in order and by part, and every lesson and gap by id.
 */
export interface Course {
  version: string;
  release: number;
  work_file_bytes: number;
  order: string[];
  parts: { number: number; lessons: string[] }[];
  lessons: Record<string, Lesson>;
  gaps: Record<string, Gap>;
}
