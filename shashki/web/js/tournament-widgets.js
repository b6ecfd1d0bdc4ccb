// Pieces of the tournament pages that several of them share (the list, the lobby's section, the page of
// one tournament): the words for a tournament's system and clock, a line of the list, and countdowns.
//
// Every figure comes from the server (T in docs/architecture.md's tournament contract): the page counts
// down from its `seconds_to_start` / `seconds_left` and never decides when a tournament starts or ends.

import { h, s } from "./dom.js";
import { t } from "./i18n.js";
import { timeControlLabel, variantName } from "./widgets.js";

/** "Arena", "Swiss", "Round robin" (double round robins say so). */
export function systemLabel(tour) {
  const name = t(`tournament.system.${tour.system}`);
  return tour.system === "roundrobin" && tour.double ? `${name} ×2` : name;
}

/** The tournament's clock as the lobby writes a game's: "3+2" (the contract gives seconds). */
export function clockLabel(clock) {
  if (!clock) return t("time.unlimited");
  return timeControlLabel({ minutes: clock.initial / 60, increment: clock.increment });
}

/** "1:05:03" or "4:03": a span of seconds as a clock shows it. */
export function duration(seconds) {
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

/**
 * What is left to wait for, as of `since` (performance.now() when the server's figures came): the start
 * of a tournament not yet started, the end of a running arena, or the round of a Swiss or round robin.
 */
export function clockText(tour, since) {
  const gone = (performance.now() - since) / 1000;
  if (tour.status === "created" && tour.seconds_to_start != null) {
    return t("tournament.startsIn", { time: duration(tour.seconds_to_start - gone) });
  }
  if (tour.status === "started") {
    if (tour.system !== "arena" && tour.rounds) return t("tournament.roundOf", { round: tour.round || 0, rounds: tour.rounds });
    if (tour.seconds_left != null) return t("tournament.timeLeft", { time: duration(tour.seconds_left - gone) });
    return t("tournament.status.started");
  }
  if (tour.status === "finished") return t("tournament.status.finished");
  return "";
}

/**
 * Keep the countdowns under `root` current: each element with data-countdown shows clockText() of the
 * tournament registered for it. Returns {track(el, tour), stop()}.
 */
export function countdowns() {
  const tracked = new Map();
  const tick = () => {
    for (const [el, { tour, since }] of tracked) {
      if (!el.isConnected) tracked.delete(el);
      else el.textContent = clockText(tour, since);
    }
  };
  const timer = setInterval(tick, 1000);
  return {
    track(el, tour) {
      tracked.set(el, { tour, since: performance.now() });
      el.textContent = clockText(tour, performance.now());
      return el;
    },
    stop() {
      clearInterval(timer);
      tracked.clear();
    },
  };
}

/** "Russian giveaway · 3+2 · Arena · Rated": the terms of a tournament in one line. */
export function termsText(tour) {
  return [variantName(tour.variant), clockLabel(tour.clock), systemLabel(tour), t(tour.rated ? "terms.rated" : "terms.casual")].join(" · ");
}

/** A line of a list of tournaments: its name (a link to its page), terms, players and countdown. */
export function tournamentItem(tour, clocks) {
  const padlock = tour.private ? lock(t("tournament.private")) : null;
  return h(
    "li",
    { class: `tournament-item ${tour.status}`, dataset: { tournamentId: tour.id, status: tour.status } },
    h(
      "a",
      { href: `/tournament/${tour.id}` },
      h("strong", {}, padlock, h("span", { translate: "no" }, tour.name)), // a name its creator chose
      // The server's own events marked as such, and any other by its creator's name: a player's event
      // named like an official one is told apart at a glance (lichess marks its official events too).
      tour.scheduled
        ? h("span", { class: "official", title: t("tournament.officialHint") }, ` ${t("tournament.official")}`)
        : tour.created_by
          ? h("small", { class: "by", translate: "no" }, ` ${t("tournament.createdBy", { name: tour.created_by })}`)
          : null,
      h("small", {}, ` ${termsText(tour)}`)
    ),
    h(
      "span",
      { class: "meta" },
      h("span", { class: "players" }, t("tournament.playersCount", { count: tour.players ?? 0 })),
      " · ",
      clocks.track(h("span", { class: "countdown" }), tour)
    )
  );
}

/**
 * A loader that never shows an older answer after a newer nudge: `load()` fetches with `fetcher()` and
 * hands the answer to `draw`; a call while a fetch runs makes one more fetch after it.
 */
export function refetcher(fetcher, draw) {
  let running = false;
  let again = false;
  return async function load() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        draw(await fetcher());
      } while (again);
    } catch (e) {
      console.warn("tournaments:", e);
    } finally {
      running = false;
    }
  };
}

// Small drawn marks (SVG, not emoji: a browser without an emoji font would show empty boxes).
function icon(name, title, ...shapes) {
  return s("svg", { class: `icon ${name}`, viewBox: "0 0 16 16", role: "img", "aria-label": title }, s("title", {}, title), ...shapes);
}

/** The flame of an arena player on a streak (lidraughts marks them so). */
export function flame(title) {
  return icon("flame", title, s("path", { d: "M8 1c1 3 5 5 5 9a5 5 0 0 1-10 0c0-2 1-3.5 2-4.5 0 1.5.7 2.5 1.5 3C6 6 6.5 3.5 8 1z" }));
}

/** The padlock of a private tournament. */
export function lock(title) {
  return icon("lock", title, s("rect", { x: 3, y: 7, width: 10, height: 8, rx: 1.5 }), s("path", { d: "M5 7V5a3 3 0 0 1 6 0v2", fill: "none", "stroke-width": 2 }));
}

/**
 * The game `username` is playing in the tournament now: the server's `me.game`, or else the running
 * pairing that names them (a Swiss or round-robin round lists every game of the round).
 */
export function currentGame(tour, username) {
  if (!tour) return null;
  if (tour.me && tour.me.game) return tour.me.game;
  if (!username || tour.status !== "started") return null;
  const mine = (tour.pairings || []).find((p) => p.status === "started" && p.game && (p.white === username || p.black === username));
  return mine ? mine.game : null;
}
