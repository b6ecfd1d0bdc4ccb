// The looks of the pages: theme (auto, light, dark), board style (wood, marine), piece style (ringed,
// flat). They live on <html> as data attributes that style.css reads; js/looks-boot.js sets them before
// the first paint from localStorage. A visitor's choices stay in localStorage only; an account's are also
// saved on the server (GET/PUT /api/account/preferences) and follow it to any browser.

import { api, isAnonymous } from "./api.js";

export const CHOICES = {
  theme: ["auto", "light", "dark"],
  board: ["wood", "marine"],
  pieces: ["ringed", "flat"],
};
const STORAGE_KEY = "shashki.looks";
const DEFAULTS = { theme: "auto", board: "wood", pieces: "ringed" };

function valid(looks) {
  const out = { ...DEFAULTS };
  for (const [name, values] of Object.entries(CHOICES)) {
    if (looks && values.includes(looks[name])) out[name] = looks[name];
  }
  return out;
}

/** The looks in force (what localStorage holds, or the defaults). */
export function currentLooks() {
  try {
    return valid(JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}"));
  } catch {
    return { ...DEFAULTS };
  }
}

/** Put `looks` on the page now and remember them in this browser. */
export function applyLooks(looks) {
  const chosen = valid(looks);
  localStorage.setItem(STORAGE_KEY, JSON.stringify(chosen));
  const root = document.documentElement;
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.themeChoice = chosen.theme;
  root.dataset.theme = chosen.theme === "auto" ? (dark ? "dark" : "light") : chosen.theme;
  root.dataset.board = chosen.board;
  root.dataset.pieces = chosen.pieces;
  return chosen;
}

/** Change some of the looks: shown at once, then saved on the server when an account is logged in. */
export async function changeLooks(changes) {
  const chosen = applyLooks({ ...currentLooks(), ...changes });
  if (!isAnonymous()) await api("PUT", "/api/account/preferences", chosen); // an account keeps them
  return chosen;
}

/** After log-in (or on load with a session): the account's own looks replace this browser's. */
export async function loadAccountLooks() {
  if (isAnonymous()) return;
  try {
    const data = await api("GET", "/api/account/preferences");
    applyLooks(data.preferences);
  } catch (e) {
    console.warn("preferences:", e);
  }
}
