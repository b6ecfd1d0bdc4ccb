// One attempt at a puzzle, as the server judges it (POST /api/puzzles/{id}/move): the page never knows the
// solution. The solver's moves so far, from the puzzle's start, are sent with each new one; the answer is
// "correct" (with the opponent's reply and the position after it), "wrong" (with the move that was right)
// or "solved". A wrong move or the last right move ends the attempt; the server rates only the first one.
//
// "View the solution" (`solutionFrom`) asks the server for the whole line once the attempt is over.

import { api, ensureSession, session } from "./api.js";

/** POST to the puzzles API; a server that wants a session for it gets an anonymous one, once. */
export async function post(path, body) {
  try {
    return await api("POST", path, body);
  } catch (e) {
    if ((e.status === 401 || e.status === 403) && !session.user) {
      await ensureSession();
      return api("POST", path, body);
    }
    throw e;
  }
}

export class Attempt {
  /** `puzzle`: the server's puzzle (P); the attempt starts at its position, the solver to move. */
  constructor(puzzle) {
    this.puzzle = puzzle;
    this.line = []; // the moves from the start: the solver's and the replies, in order
    this.position = puzzle.position; // the position the solver now moves in
    this.over = false; // a wrong move or the solution ended it
    this.result = null; // the last answer of the server
  }

  /** Send the solver's `move`: the server's answer, with `line` and `position` kept in step. */
  async play(move) {
    const line = [...this.line, move];
    const data = await post(`/api/puzzles/${this.puzzle.id}/move`, { line });
    this.result = data;
    if (data.result === "correct") {
      this.line = data.reply ? [...line, data.reply] : line;
      this.position = data.position;
    } else {
      this.over = true;
      if (data.result === "solved") {
        this.line = line;
        this.position = data.position;
      }
    }
    return data;
  }
}

/** The whole solution line from the puzzle's start (asked after an attempt, it changes nothing). */
export async function solutionFrom(puzzle) {
  const data = await post(`/api/puzzles/${puzzle.id}/solution`, {});
  return { moves: data.solution, complete: true };
}

/** The positions along `moves` from the puzzle's start, from the analysis board's API (each with last_move). */
export async function positionsAlong(puzzle, moves) {
  const body = { variant: puzzle.variant, fen: puzzle.fen, moves, double_diagonal: !!puzzle.position.double_diagonal };
  return api("POST", "/api/analysis/position", body);
}
