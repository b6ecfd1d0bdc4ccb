// Finding a move among the legal moves the server sent, from what a player typed or clicked ahead of
// time. This matches, it does not parse: the server's notation parser stays the one judge of a typed
// move (rules/notation.py); a text that matches nothing here is sent as typed and the server answers.

/** A move's text in one form for comparing: lower case, no spaces, any capture sign as ":". */
export function normalise(text) {
  return String(text).trim().toLowerCase().replace(/\s+/g, "").replace(/[x×]/g, ":");
}

/** The legal moves whose notation begins with `text` (all of them for an empty text). */
export function completions(text, legal) {
  const typed = normalise(text);
  return legal.filter((m) => normalise(m.move).startsWith(typed));
}

/**
 * The legal moves a path of squares may mean: those that start and end where it does and pass through
 * its squares in order (`c3 e5 g7` for `c3:e5:g7`, or `c3 g7` when only one capture goes that way). A
 * move whose path is exactly the one given is preferred to longer ones.
 */
export function movesByPath(path, legal) {
  if (path.length < 2) return [];
  const last = path[path.length - 1];
  const through = legal.filter((m) => {
    if (m.path[0] !== path[0] || m.path[m.path.length - 1] !== last) return false;
    let i = 0;
    for (const label of m.path) if (label === path[i]) i++;
    return i === path.length;
  });
  const exact = through.filter((m) => m.path.length === path.length && m.path.every((l, i) => l === path[i]));
  return exact.length ? exact : through;
}

/** The squares a text names, in order (`c3-d4` -> c3, d4; `27x18` -> 27, 18). */
export function pathOf(text) {
  return normalise(text)
    .split(/[-:]/)
    .filter(Boolean);
}

/**
 * The one legal move `text` names, if there is one: its exact notation, a beginning of only one move's
 * notation, or its squares. {move, candidates}: `move` is null unless the text names exactly one.
 */
export function resolveText(text, legal) {
  const typed = normalise(text);
  if (!typed) return { move: null, candidates: [] };
  const exact = legal.filter((m) => normalise(m.move) === typed);
  if (exact.length === 1) return { move: exact[0], candidates: exact };
  const prefixed = completions(typed, legal);
  if (prefixed.length === 1) return { move: prefixed[0], candidates: prefixed };
  if (prefixed.length > 1) return { move: null, candidates: prefixed };
  const byPath = movesByPath(pathOf(typed), legal);
  return { move: byPath.length === 1 ? byPath[0] : null, candidates: byPath };
}
