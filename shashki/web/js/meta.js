// The lists the server owns, fetched once when the client starts (GET /api/meta): quick-pairing presets,
// the reasons a challenge may be declined for, the computer's levels, and the variants (handed to
// geometry.js, which draws boards from them). The client keeps no copy of them.

import { setVariants } from "./geometry.js";

let data = { quick_pairing: [], decline_reasons: [], levels: [] };

export async function loadMeta() {
  const response = await fetch("/api/meta", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`/api/meta: ${response.status}`);
  data = await response.json();
  setVariants(data.variants);
  return data;
}

/** Quick pairing: [{preset: "3+2", minutes, increment, speed: "blitz"}, ...] as the server pairs them. */
export function quickPairing() {
  return data.quick_pairing;
}

/** The reasons a person may give for declining a challenge ("generic", "later", "too_fast", ...). */
export function declineReasons() {
  return data.decline_reasons;
}

/** The computer's levels, weakest first. */
export function levels() {
  return data.levels;
}
