// Languages: one catalogue of UI strings per language (i18n/<lang>.json, flat keys), chosen by the player
// and remembered in localStorage. A key missing from a catalogue falls back to English.

export const LANGUAGES = ["en", "ru", "vi"];
const STORAGE_KEY = "shashki.language";

let current = "en";
let catalogue = {};
let english = {};

async function fetchCatalogue(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${lang}`);
  return response.json();
}

export function language() {
  return current;
}

/** The language to start with: the one chosen before, else the browser's, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const lang = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(lang)) return lang;
  }
  return "en";
}

export async function setLanguage(lang, { remember = true } = {}) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!Object.keys(english).length) english = await fetchCatalogue("en");
  catalogue = lang === "en" ? english : await fetchCatalogue(lang);
  current = lang;
  document.documentElement.lang = lang;
  if (remember) localStorage.setItem(STORAGE_KEY, lang);
}

/** The text of `key` in the current language, with {name} placeholders filled from `vars`. With a number
 * in `vars.count` or `vars.n` (else the text's first number), the form of that number when the catalogue
 * has one (`<key>.one`: English's "1 game", the language's plural rules deciding which numbers take it). */
export function t(key, vars = {}) {
  const base = catalogue[key] ?? english[key] ?? key;
  // The number the text's noun goes with: `count` or `n`, else the first number among its placeholders.
  const first = [...base.matchAll(/\{(\w+)\}/g)].map((m) => vars[m[1]]).find((v) => typeof v === "number");
  const count = vars.count ?? vars.n ?? first;
  const form = typeof count === "number" ? catalogue[`${key}.${new Intl.PluralRules(current).select(count)}`] : undefined;
  const text = form ?? base;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** True when the catalogue has the key (for optional texts). */
export function has(key) {
  return key in catalogue || key in english;
}

/** A server error for people. In English, the server's own message (it names the squares and the moves);
 * in Russian and Vietnamese the catalogue's text for its code (`error.<code>`, with the legal moves in
 * {legal}; `error.<code>.none` when there are none), or the server's message for a code it lacks. */
export function errorText(error) {
  const code = error?.code;
  const message = error?.message || code || "";
  if (current === "en" || !code) return message;
  const legal = (error.legal || []).join(", ");
  const key = !legal && `error.${code}.none` in catalogue ? `error.${code}.none` : `error.${code}`;
  return key in catalogue ? t(key, { legal }) : message;
}
