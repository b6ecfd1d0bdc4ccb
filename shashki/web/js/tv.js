// TV (/tv and /tv/{variant}): the best-rated game in progress of a variant, watched live on the game page
// itself (game.js, as a spectator), and the next best one once it ends. /tv shows the best channel of all.
//
// The server chooses (GET /api/tv/{variant}?current=id keeps the game shown while it is in play); the page
// asks again whenever the lobby's live channel says the games in play changed, and every few seconds.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { playerLabel, variantName } from "./widgets.js";

const RESULT_MS = 3000;
const EVERY_MS = 8000; // besides every change of the games in play the lobby socket reports

// The players named as everywhere else (playerLabel): the computer with its level, an anonymous player
// in the page's language.
function gameTitle(game) {
  return `${playerLabel(game.white)} – ${playerLabel(game.black)}`;
}

export async function mount(container, { variant }) {
  const channels = h("nav", { class: "tv-channels", id: "tv-channels", "aria-label": t("tv.channels") });
  const info = h("p", { class: "tv-info", id: "tv-info", "aria-live": "polite" });
  const screen = h("div", { class: "tv-screen", id: "tv-screen" });
  const section = h("section", { class: "tv", id: "tv" }, h("h1", {}, t("tv.title")), channels, info, screen);
  container.append(section);
  let shown = null; // {id, variant, page} of the game on screen
  const chosen = variant || null; // /tv follows the best channel; /tv/{variant} that variant's
  let closed = false;
  let asking = false;

  async function show(game) {
    if (closed) return;
    if (!game) {
      if (shown) shown.page.unmount();
      shown = null;
      section.dataset.gameId = "";
      fill(screen);
      fill(info, h("span", { id: "tv-empty" }, chosen ? t("tv.emptyVariant", { variant: variantName(chosen) }) : t("tv.empty")));
      return;
    }
    fill(info, `${variantName(game.variant)} · ${gameTitle(game)} · `, h("span", { class: "tv-rating" }, t("tv.rating", { rating: game.rating })));
    if (shown && shown.id === game.id) return;
    if (shown) shown.page.unmount();
    const holder = h("div", { class: "tv-game" });
    fill(screen, holder);
    const page = await import("./game.js");
    const mounted = await page.mount(holder, { id: game.id });
    shown = { id: game.id, variant: game.variant, page: mounted };
    section.dataset.gameId = game.id;
  }

  // The game on screen has ended: its result stays in view a moment before the next game comes on.
  async function ended() {
    if (!shown.endedAt) {
      shown.endedAt = Date.now();
      setTimeout(ask, RESULT_MS);
    }
    return Date.now() - shown.endedAt >= RESULT_MS;
  }

  async function ask() {
    if (asking || closed) return;
    asking = true;
    try {
      const { channels: all } = await api("GET", "/api/tv");
      fill(
        channels,
        ...all.map((c) =>
          h(
            "a",
            { href: `/tv/${c.variant}`, class: c.variant === (chosen || (shown && shown.variant)) ? "active" : "", dataset: { variant: c.variant } },
            variantName(c.variant),
            h("small", {}, ` ${c.game.rating}`)
          )
        )
      );
      let game;
      if (chosen) {
        const current = shown ? `?current=${encodeURIComponent(shown.id)}` : "";
        ({ game } = await api("GET", `/api/tv/${encodeURIComponent(chosen)}${current}`));
      } else if (shown) {
        // /tv keeps its game while it is in play, then goes to the best game of all.
        const kept = (await api("GET", `/api/tv/${encodeURIComponent(shown.variant)}?current=${encodeURIComponent(shown.id)}`)).game;
        game = kept && kept.id === shown.id ? kept : all[0] && all[0].game;
      } else {
        game = all[0] && all[0].game;
      }
      if (shown && (!game || game.id !== shown.id) && !(await ended())) return;
      await show(game || null);
    } catch (e) {
      fill(info, e.message);
    } finally {
      asking = false;
    }
  }

  const unsubscribe = subscribe((message) => {
    if (message.type === "nowPlaying") ask();
  });
  const timer = setInterval(ask, EVERY_MS);
  await ask();
  return {
    unmount() {
      closed = true;
      clearInterval(timer);
      unsubscribe();
      if (shown) shown.page.unmount();
    },
  };
}
