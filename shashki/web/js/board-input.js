// Entering a move on the board, by clicking squares or dragging the piece: the player walks along the
// paths of the legal moves the server sent, one square at a time (the Board draws each step), and the
// move is handed on when the path walked names exactly one of them.

const DRAG_THRESHOLD = 5; // pixels the pointer moves before a press becomes a drag

/** Whether `path` begins with the squares of `prefix`. */
export function samePrefix(path, prefix) {
  return prefix.every((label, i) => path[i] === label);
}

export class PathInput {
  /** Listens to `board`'s pointer events; the move walked so far is `board.prefix`. */
  constructor(board) {
    this.board = board;
    this.press = null; // the pointer held down: {label, x, y, draggable, dragging, from}
    this.listen();
  }

  listen() {
    this.board.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.board.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.board.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.board.svg.addEventListener("pointercancel", () => this.endPress());
    this.board.svg.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      this.board.cancel();
    });
  }

  pointerDown(e) {
    if (e.button !== 0 || !this.board.movable) return;
    const sq = this.board.squareAtPoint(e.clientX, e.clientY);
    if (!sq) return;
    e.preventDefault();
    // Before a move is begun any piece that can move may be dragged; in the middle of a capture, the
    // capturing piece from where it stands.
    const draggable =
      this.board.prefix.length <= 1
        ? this.board.legal.some((m) => m.path[0] === sq.label)
        : sq.label === this.board.prefix[this.board.prefix.length - 1];
    this.press = { label: sq.label, x: e.clientX, y: e.clientY, draggable, dragging: false, from: null };
    try {
      this.board.svg.setPointerCapture(e.pointerId);
    } catch {
      /* synthetic events have no capturable pointer */
    }
  }

  pointerMove(e) {
    const press = this.press;
    if (!press || !press.draggable) return;
    if (!press.dragging) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_THRESHOLD) return;
      press.dragging = true;
      if (this.board.prefix.length <= 1) this.board.prefix = [press.label];
      press.from = this.board.prefix[this.board.prefix.length - 1];
      this.board.render();
    }
    const rect = this.board.svg.getBoundingClientRect();
    const x = ((e.clientX - rect.left) / rect.width) * this.board.size;
    const y = ((e.clientY - rect.top) / rect.height) * this.board.size;
    const start = this.board.prefix[0];
    const piece = this.board.pieces.get(start);
    if (!piece) return;
    this.board.layers.drag.replaceChildren(this.board.pieceShape(piece, x, y, ["piece", piece.color, "dragged"], ""));
  }

  pointerUp(e) {
    const press = this.press;
    if (!press) return;
    const sq = this.board.squareAtPoint(e.clientX, e.clientY);
    this.endPress();
    if (press.dragging) {
      if (sq && sq.label !== press.from) this.step(sq.label);
      else this.board.render();
    } else if (sq && sq.label === press.label) {
      this.step(sq.label);
    }
  }

  endPress() {
    this.press = null;
    this.board.layers.drag.replaceChildren();
  }

  /** One square clicked or dropped on: select a piece, take the next step of a move, or finish it. */
  step(label) {
    if (!this.board.movable) return;
    const prefix = this.board.prefix;
    if (!prefix.length) {
      if (this.board.legal.some((m) => m.path[0] === label)) this.board.prefix = [label];
      this.board.hint(null);
      this.board.render();
      return;
    }
    const k = prefix.length;
    const candidates = this.board.candidates();
    if (k === 1 && label === prefix[0]) {
      this.board.cancel();
      return;
    }
    let next = candidates.filter((m) => m.path[k] === label);
    if (!next.length) {
      // A square further along: fine when every move through it takes the same way there.
      const ahead = candidates.filter((m) => m.path.indexOf(label, k) > k);
      if (ahead.length) {
        const until = (m) => m.path.slice(0, m.path.indexOf(label, k) + 1).join(" ");
        if (ahead.every((m) => until(m) === until(ahead[0]))) {
          this.board.prefix = until(ahead[0]).split(" ");
          return this.afterStep();
        }
        this.board.hint("ambiguous");
        return;
      }
      if (k === 1 && this.board.legal.some((m) => m.path[0] === label)) {
        this.board.prefix = [label]; // another piece
        this.board.hint(null);
        this.board.render();
        return;
      }
      if (k === 1) this.board.cancel();
      return;
    }
    this.board.prefix = [...prefix, label];
    this.afterStep();
  }

  afterStep() {
    const candidates = this.board.candidates();
    // A capture must be completed, so a whole path is never the beginning of another: the move is done.
    const done = candidates.find((m) => m.path.length === this.board.prefix.length);
    if (done) {
      this.submit(done);
      return;
    }
    const k = this.board.prefix.length;
    const nextBySame = new Map();
    for (const m of candidates) {
      const key = m.captures[k - 1] ?? "";
      nextBySame.set(key, (nextBySame.get(key) || new Set()).add(m.path[k]));
    }
    const landing = [...nextBySame.values()].some((set) => set.size > 1);
    this.board.hint(landing ? "landing" : k > 1 ? "continue" : null);
    this.board.render();
  }

  submit(move) {
    // Show the move at once; the server's next state confirms it (or the page restores the position).
    const start = move.path[0];
    const end = move.path[move.path.length - 1];
    const piece = this.board.pieces.get(start);
    this.board.pieces.delete(start);
    for (const c of move.captures) this.board.pieces.delete(c);
    if (piece) this.board.pieces.set(end, piece);
    this.board.lastMove = move.path;
    this.board.prefix = [];
    this.board.movable = false;
    this.board.hint(null);
    this.board.render();
    if (this.board.options.onMove) this.board.options.onMove(move.move, move);
  }
}
