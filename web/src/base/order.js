// @ts-check
// The order a learner sees a question's options in: the same algorithm as labs/course/questions.py, so the
// lesson page and the notebook list them alike for one learner.
//
// Each option gets a rank: the 32-bit FNV-1a hash of the UTF-8 bytes of "<seed>:<question>:<option>"
// (question as "L10.bfs", option by its id), passed through MurmurHash3's 32-bit finaliser. Options
// are listed by rank, smallest first; equal ranks keep the course's order.

export const SEED_PATTERN = /^[0-9a-f]{8,64}$/; // a learner seed: lower-case hex, 8 to 64 digits
export const FALLBACK_SEED = "00000000"; // for a learner without a seed of their own

/**
 * FNV-1a (32 bits) of a text's UTF-8 bytes, finished with MurmurHash3's fmix32: an unsigned integer.
 *
 * @param {string} text
 * @returns {number}
 */
export function rank(text) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The option ids of question ``key`` ("L10.bfs") in the order learner ``seed`` sees them.
 *
 * @param {string} seed
 * @param {string} key
 * @param {string[]} ids
 * @returns {string[]}
 */
export function optionOrder(seed, key, ids) {
  return ids
    .map((id, index) => ({ id, index, rank: rank(`${seed}:${key}:${id}`) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((option) => option.id);
}

/**
 * A new learner seed: 16 random hex digits.
 *
 * @returns {string}
 */
export function newSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
