// Pieces of UI several pages share: game terms (variant, clock, colour, rated), labels of variants, time
// controls and players, the sentence that says why a game ended, cards and buttons that call the server.

import { h, toast } from "./dom.js";
import { defaultVariant, variant, variants } from "./geometry.js";
import { t } from "./i18n.js";
import { levels } from "./meta.js";

export const TIME_PRESETS = ["1+0", "3+0", "3+2", "5+0", "5+3", "10+0", "15+15", "30+0"];
// Days per move of a correspondence game (the server's `DAYS_PER_MOVE`).
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 14];

export function variantName(key) {
  const v = variant(key);
  return t(`variant.${v.key}`);
}

export function variantSelect(attrs = {}, selected = defaultVariant()) {
  return h(
    "select",
    attrs,
    variants().map((v) => h("option", { value: v.key, selected: v.key === selected }, t(`variant.${v.key}`)))
  );
}

/** "5+3", "3 days/move" for a correspondence game (`days`), or "no clock" for an unlimited game; accepts
 * {minutes, increment} or a game's clocks. */
export function timeControlLabel(tc, days = null) {
  if (days) return t("corr.label", { n: days });
  if (!tc) return t("time.unlimited");
  if ("initial_ms" in tc) tc = { minutes: tc.initial_ms / 60000, increment: tc.increment_ms / 1000 };
  const minutes = Number.isInteger(tc.minutes) ? tc.minutes : +tc.minutes.toFixed(2);
  return `${minutes}+${tc.increment}`;
}

export function playerLabel(player) {
  if (!player) return "?";
  if (player.computer) return t("player.computer", { level: player.level });
  if (player.anonymous) return t("anon.name");
  return player.username + (player.bot ? " 🤖" : "");
}

export function playerLink(player) {
  if (!player || player.computer) return h("span", { class: "player" }, playerLabel(player));
  if (player.anonymous) return h("span", { class: "player anonymous" }, t("anon.name"));
  return h("a", { class: "player", href: `/@/${encodeURIComponent(player.username)}` }, playerLabel(player));
}

function field(label, control) {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

/**
 * Fields for the terms of a game. Options: color, rated, level (the computer), time (default preset).
 * Returns {el, value()} where value() is the request body the server expects.
 */
export function termsFields(name, options = {}) {
  const variantInput = variantSelect({ name: "variant", id: `${name}-variant` });
  const timeInput = h(
    "select",
    { name: "time", id: `${name}-time` },
    h("option", { value: "unlimited" }, t("time.unlimited")),
    TIME_PRESETS.map((p) => h("option", { value: p, selected: p === (options.time || "5+3") }, p)),
    h("option", { value: "custom" }, t("time.custom")),
    options.correspondence === false
      ? null
      : h("optgroup", { label: t("corr.group") }, CORRESPONDENCE_DAYS.map((n) => h("option", { value: `days:${n}` }, t("corr.label", { n }))))
  );
  const minutes = h("input", { type: "number", min: "0.5", max: "180", step: "0.5", value: "5", name: "minutes" });
  const increment = h("input", { type: "number", min: "0", max: "180", step: "1", value: "3", name: "increment" });
  const custom = h(
    "div",
    { class: "row custom-time", hidden: true },
    field(t("time.minutes"), minutes),
    field(t("time.increment"), increment)
  );
  timeInput.addEventListener("change", () => (custom.hidden = timeInput.value !== "custom"));
  if (options.time === "unlimited") timeInput.value = "unlimited";

  const colorInput = h(
    "select",
    { name: "color", id: `${name}-color` },
    ["random", "white", "black"].map((c) => h("option", { value: c }, t(`color.choose.${c}`)))
  );
  const ratedInput = h("input", { type: "checkbox", name: "rated", id: `${name}-rated` });
  const diagonalInput = h("input", { type: "checkbox", name: "double_diagonal", id: `${name}-double-diagonal` });
  const diagonalField = h(
    "label",
    { class: "check", title: t("terms.doubleDiagonalHelp") },
    diagonalInput,
    t("terms.doubleDiagonal")
  );
  const levelInput = h(
    "select",
    { name: "level", id: `${name}-level` },
    levels().map((n, i) => h("option", { value: n, selected: i === 0 }, n))
  );
  const showOptions = () => {
    diagonalField.hidden = !variant(variantInput.value).options.includes("double-diagonal");
    if (diagonalField.hidden) diagonalInput.checked = false;
  };
  variantInput.addEventListener("change", showOptions);
  showOptions();

  const el = h(
    "div",
    { class: "terms" },
    field(t("terms.variant"), variantInput),
    field(t("terms.time"), timeInput),
    custom,
    options.level ? field(t("terms.level"), levelInput) : null,
    options.color !== false ? field(t("terms.color"), colorInput) : null,
    h("div", { class: "row" }, options.rated !== false ? h("label", { class: "check" }, ratedInput, t("terms.rated")) : null, diagonalField)
  );

  function value() {
    let time_control = null;
    let days = null; // a correspondence game: days per move
    // One branch per kind of choice: "custom" must not fall through to the "m+i" presets' parsing.
    if (timeInput.value === "custom") time_control = { minutes: +minutes.value, increment: +increment.value };
    else if (timeInput.value.startsWith("days:")) days = +timeInput.value.slice(5);
    else if (timeInput.value !== "unlimited") {
      const [m, i] = timeInput.value.split("+").map(Number);
      time_control = { minutes: m, increment: i };
    }
    const body = { variant: variantInput.value, time_control, double_diagonal: diagonalInput.checked };
    if (days) body.days = days;
    if (options.color !== false) body.color = colorInput.value;
    if (options.rated !== false) body.rated = ratedInput.checked;
    if (options.level) body.level = +levelInput.value;
    return body;
  }
  return { el, value };
}

/** Why a game ended, in the players' words: "White wins — no moves left: in giveaway …". */
export function resultText(game) {
  if (game.status === "aborted" || game.reason === "aborted") return t("result.aborted");
  if (game.status === "started") return "";
  const v = variant(game.variant);
  const winner = game.winner;
  const loser = winner === "white" ? "black" : "white";
  const names = { winner: t(`color.${winner}`), loser: t(`color.${loser}`) };
  let why;
  if (game.reason === "no-legal-move") why = t(v.giveaway ? "reason.noMoves.giveaway" : "reason.noMoves.normal");
  else why = t(`reason.${game.reason}`, names);
  if (!winner) return t("result.draw", { why });
  return t(`result.wins.${winner}`, { why });
}

/** A titled card of a page: <section class="card" id=…><h2>title</h2>…</section>. */
export function card(id, title, ...children) {
  return h("section", { class: "card", id }, h("h2", {}, title), ...children);
}

/** Run `action` for a clicked button: the button is disabled meanwhile, and a failure shows as a toast. */
export async function act(button, action) {
  button.disabled = true;
  try {
    return await action();
  } catch (e) {
    toast(e.message || String(e), "error");
  } finally {
    button.disabled = false;
  }
}
