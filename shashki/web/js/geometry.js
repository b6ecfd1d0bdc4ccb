// Board geometry and notation, as the server describes each variant (GET /api/meta, through meta.js).
//
// This is drawing, not rules: which squares are dark, where square 22 or c3 is, how a FEN places the
// pieces, which squares a move's notation names. Which moves are legal always comes from the server.
//
// Squares are numbered 1 … 32 (or 1 … 50) row by row from Black's side (RULES.md §1). On the standard
// board a1 is dark: rows 0, 2, … (from the top) have their dark squares on files b, d, …; on the mirrored
// Italian board a1 is light and square 1 is a8, so those rows have theirs on files a, c, ….

let variantList = [];
let variantsByKey = new Map();
let defaultKey = "russian-giveaway";

/** Take the variants as the server describes them ({default, variants}: from /api/meta, see meta.js). */
export function setVariants(data) {
  variantList = data.variants;
  defaultKey = data.default;
  variantsByKey = new Map();
  for (const v of variantList) {
    variantsByKey.set(v.key, v);
    for (const alias of v.aliases) variantsByKey.set(alias, v);
  }
  return variantList;
}

/** Russian giveaway (poddavki) first, then each base variant followed by its giveaway form. */
export function variants() {
  const order = ["russian", "brazilian", "international", "english", "italian", "pool"];
  const rank = (v) => {
    const base = v.key.replace(/-giveaway$/, "");
    if (v.key === defaultKey) return -1;
    return order.indexOf(base) * 2 + (v.giveaway ? 1 : 0);
  };
  return [...variantList].sort((a, b) => rank(a) - rank(b));
}

export function variant(key) {
  return variantsByKey.get(key || defaultKey) || variantsByKey.get(defaultKey);
}

export function defaultVariant() {
  return defaultKey;
}

const FILES = "abcdefghij";

/** The squares of one variant's board: number, row and column (0 = top, 0 = file a), name, label. */
export class Geometry {
  constructor(v) {
    this.variant = v;
    this.size = v.board_size;
    this.half = this.size / 2;
    this.squares = [];
    this.byLabel = new Map();
    this.byNumber = new Map();
    for (let n = 1; n <= v.squares; n++) {
      const row = Math.floor((n - 1) / this.half);
      const j = (n - 1) % this.half;
      const darkOnOdd = v.mirrored ? row % 2 === 1 : row % 2 === 0;
      const col = darkOnOdd ? 2 * j + 1 : 2 * j;
      const name = `${FILES[col]}${this.size - row}`;
      const square = { number: n, row, col, name, label: v.algebraic ? name : String(n) };
      this.squares.push(square);
      this.byNumber.set(n, square);
      this.byLabel.set(square.label, square);
      this.byLabel.set(name, square);
      this.byLabel.set(String(n), square);
    }
  }

  /** The square a label names: its number (any board) or its name (8×8), in the variant's notation. */
  square(label) {
    return this.byLabel.get(String(label).trim().toLowerCase()) || null;
  }

  at(row, col) {
    return this.squares.find((sq) => sq.row === row && sq.col === col) || null;
  }

  isDark(row, col) {
    const darkOnOdd = this.variant.mirrored ? row % 2 === 1 : row % 2 === 0;
    return (col % 2 === 1) === darkOnOdd;
  }

  /** The squares strictly between two squares of one diagonal (none if they are not on one). */
  between(a, b) {
    const dr = Math.sign(b.row - a.row);
    const dc = Math.sign(b.col - a.col);
    if (!dr || Math.abs(b.row - a.row) !== Math.abs(b.col - a.col)) return [];
    const out = [];
    for (let r = a.row + dr, c = a.col + dc; r !== b.row; r += dr, c += dc) out.push(this.at(r, c));
    return out;
  }
}

const geometries = new Map();

export function geometry(key) {
  const v = variant(key);
  if (!geometries.has(v.key)) geometries.set(v.key, new Geometry(v));
  return geometries.get(v.key);
}

/**
 * The pieces of a FEN (`W:W21,22,K5:B1,2`, squares by number or name, ranges `1-12`):
 * {toMove, pieces: Map(label -> {color, king})}.
 */
export function parseFen(fen, geom) {
  const pieces = new Map();
  let toMove = "white";
  const parts = String(fen).trim().replace(/\.$/, "").split(":");
  if (parts[0].toUpperCase() === "B") toMove = "black";
  for (const part of parts.slice(1)) {
    const side = part[0].toUpperCase();
    if (side !== "W" && side !== "B") continue;
    const color = side === "W" ? "white" : "black";
    for (let token of part.slice(1).split(",")) {
      token = token.trim();
      if (!token) continue;
      const king = token[0].toUpperCase() === "K";
      if (king) token = token.slice(1);
      const range = token.match(/^(\d+)-(\d+)$/);
      const labels = range ? [] : [token];
      if (range) for (let n = +range[1]; n <= +range[2]; n++) labels.push(String(n));
      for (const label of labels) {
        const sq = geom.square(label);
        if (sq) pieces.set(sq.label, { color, king });
      }
    }
  }
  return { toMove, pieces };
}

/** The squares a move's notation names, in order: `c3:e5:g3` -> [c3, e5, g3]. */
export function squaresOf(notation, geom) {
  return String(notation)
    .split(/[-x:×]/)
    .map((token) => geom.square(token))
    .filter(Boolean);
}
