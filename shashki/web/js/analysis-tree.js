// The analysis board's move tree: positions as the server described them (FEN, legal moves, outcome,
// endgame tables), the moves between them, variations, comments. The page computes no rules: each new
// position comes from the server (/api/analysis/position, /api/analysis/pdn).
//
// A node: {id, parent, move, path, fen, side_to_move, ply, legal, outcome, tablebase, comment, before,
// marks, children}; the first child is the main continuation, the others are variations.

import { h } from "./dom.js";

let nextId = 1;

/** A node from a position the server described (`/api/analysis/position` or one node of an import). */
export function makeNode(data, parent = null) {
  return {
    id: nextId++,
    parent,
    move: data.move ?? null,
    path: data.path || data.last_move || [],
    fen: data.fen,
    side_to_move: data.side_to_move,
    ply: data.ply ?? (parent ? parent.ply + 1 : 0),
    legal: data.legal_moves || [],
    outcome: data.outcome || null,
    tablebase: data.tablebase || null,
    comment: data.comment || "",
    before: data.before || "",
    marks: data.marks || [],
    children: [],
  };
}

/** A whole tree from an imported game's `nodes` (in pre-order, each naming its parent's index): the root. */
export function treeFromImport(nodes) {
  const made = [];
  for (const data of nodes) {
    const parent = data.parent === null || data.parent === undefined ? null : made[data.parent];
    const node = makeNode(data, parent);
    if (parent) parent.children.push(node);
    made.push(node);
  }
  return made[0];
}

/** The moves from the root to `node`. */
export function movesTo(node) {
  const moves = [];
  for (let n = node; n && n.parent; n = n.parent) moves.unshift(n.move);
  return moves;
}

/** The child indices leading from the root to `node` (the address's `at`). */
export function indicesTo(node) {
  const out = [];
  for (let n = node; n && n.parent; n = n.parent) out.unshift(n.parent.children.indexOf(n));
  return out;
}

/** The node the indices lead to, as far as they go ("end": the end of the main line). */
export function nodeAt(root, at) {
  let node = root;
  if (at === "end") {
    while (node.children.length) node = node.children[0];
    return node;
  }
  for (const i of at) {
    if (!node.children[i]) break;
    node = node.children[i];
  }
  return node;
}

/** The child reached by `move` from `node`, if it is already in the tree. */
export function childByMove(node, move) {
  return node.children.find((child) => child.move === move) || null;
}

/** Make the variation that holds `node` the main line at the nearest point where it branches off. */
export function promote(node) {
  for (let n = node; n && n.parent; n = n.parent) {
    const siblings = n.parent.children;
    const i = siblings.indexOf(n);
    if (i > 0) {
      siblings.splice(i, 1);
      siblings.unshift(n);
      return true;
    }
  }
  return false;
}

/** Delete `node` and everything after it; returns the node to show next (its parent). */
export function remove(node) {
  if (!node.parent) return node;
  const siblings = node.parent.children;
  siblings.splice(siblings.indexOf(node), 1);
  return node.parent;
}

/** Whether `node` lies on a variation (not on the main line from the root). */
export function inVariation(node) {
  for (let n = node; n && n.parent; n = n.parent) if (n.parent.children[0] !== n) return true;
  return false;
}

const cleanComment = (text) => text.replace(/[{}]/g, "").trim();

/** A move as written, with its marks ("!", "?!"; not the "$n" ones): the same on the main line and in a
 * variation, in the movetext and in the drawn tree. */
const markedMove = (node) => node.move + node.marks.filter((m) => !m.startsWith("$")).join("");

/** The tree as PDN movetext: moves, variations in parentheses, comments in braces (for the address). */
export function movetext(root) {
  const out = [];
  const comment = (text) => text && out.push(`{${cleanComment(text)}}`);
  const move = (node) => out.push(markedMove(node));
  const line = (node) => {
    // `node`: the position the line continues from.
    let current = node;
    while (current.children.length) {
      const [main, ...others] = current.children;
      comment(main.before);
      move(main);
      comment(main.comment);
      for (const other of others) {
        out.push("(");
        comment(other.before);
        move(other);
        comment(other.comment);
        line(other);
        out.push(")");
      }
      current = main;
    }
  };
  line(root);
  return out.join(" ");
}

/**
 * The tree drawn as a move list: the main line, each variation in parentheses after the move it
 * replaces. `first` is the side whose moves are numbered "n." (the variant's first player).
 */
export function drawTree(root, current, first, onPick) {
  const box = h("div", { class: "analysis-tree", id: "analysis-tree" });
  const offset = root.side_to_move === first ? 0 : 1;
  const number = (node, force) => {
    const at = node.ply - 1 + offset;
    const n = Math.floor(at / 2) + 1;
    if (at % 2 === 0) return `${n}.`;
    return force ? `${n}…` : "";
  };
  const moveEl = (node, force) =>
    h(
      "span",
      {
        class: `tree-move${node === current ? " current" : ""}`,
        dataset: { node: String(node.id), move: node.move },
        role: "button",
        tabindex: "0",
        onClick: () => onPick(node),
        onKeydown: (e) => e.key === "Enter" && onPick(node),
      },
      h("small", { class: "number" }, number(node, force)),
      markedMove(node)
    );
  const note = (text) => (text ? h("span", { class: "tree-comment" }, text) : null);
  const line = (node, container, startsLine) => {
    let current = node;
    let force = startsLine;
    while (current.children.length) {
      const [main, ...others] = current.children;
      container.append(note(main.before) || "", moveEl(main, force), note(main.comment) || "");
      force = false;
      for (const other of others) {
        const variation = h("div", { class: "tree-variation" });
        variation.append(note(other.before) || "", moveEl(other, true), note(other.comment) || "");
        line(other, variation, false);
        container.append(variation);
        force = true; // after a variation the main line's next move carries its number again
      }
      current = main;
    }
  };
  line(root, box, true);
  if (!root.children.length) box.append(h("span", { class: "muted" }, "—"));
  return box;
}
