// A player's profile: ratings per variant and speed with their history, game counts, the games played
// (each opens on the game page, which replays a finished game and offers its PDN).

import { api, session } from "./api.js";
import { fill, h, s } from "./dom.js";
import { language, t } from "./i18n.js";
import { resultText, variantName } from "./widgets.js";

const PER_PAGE = 20;

function sparkline(points) {
  // The rating after each rated game, as a small line; the first point is where it started.
  if (points.length < 2) return null;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings);
  const high = Math.max(...ratings);
  const span = Math.max(high - low, 1);
  const step = 100 / (points.length - 1);
  const coords = ratings.map((r, i) => `${(i * step).toFixed(1)},${(36 - ((r - low) / span) * 32).toFixed(1)}`);
  return s(
    "svg",
    { viewBox: "0 0 100 40", preserveAspectRatio: "none", role: "img", "aria-label": t("profile.history") },
    s("polyline", { points: coords.join(" ") })
  );
}

function ratingCard(rating, history) {
  const points = (history.find((g) => g.variant === rating.variant && g.speed === rating.speed) || {}).points || [];
  return h(
    "div",
    { class: "rating", dataset: { variant: rating.variant, speed: rating.speed } },
    h("span", {}, variantName(rating.variant), " · ", t(`speed.${rating.speed}`)),
    h("strong", {}, rating.rating, rating.provisional ? "?" : ""),
    h("small", { class: "muted" }, t("profile.gamesCount", { count: rating.games }), rating.provisional ? ` · ${t("profile.provisional")}` : ""),
    sparkline(points),
    points.length
      ? h(
          "details",
          { class: "history" },
          h("summary", {}, t("profile.history")),
          h(
            "ol",
            {},
            points
              .slice()
              .reverse()
              .map((p) =>
                h("li", {}, h("a", { href: `/game/${p.game_id}` }, new Date(p.at).toLocaleDateString(language())), ` ${p.rating}`)
              )
          )
        )
      : null
  );
}

function playerName(player) {
  if (!player) return "?";
  if (player.aiLevel !== undefined) return t("player.computer", { level: player.aiLevel });
  const rating = player.rating !== undefined ? ` (${player.rating})` : "";
  return `${player.user.name}${rating}`;
}

function gameRow(game, username) {
  const lower = username.toLowerCase();
  const color = game.players.white.user && game.players.white.user.id === lower ? "white" : "black";
  const status = game.status === "started" ? "started" : game.reason === "aborted" ? "aborted" : "finished";
  const outcome = status !== "finished" ? "" : !game.winner ? "draw" : game.winner === color ? "win" : "loss";
  const diff = game.players[color].ratingDiff;
  const date = new Date(game.createdAt).toLocaleDateString(language());
  return h(
    "li",
    { class: `game-row ${outcome}`, dataset: { gameId: game.id } },
    h(
      "a",
      { href: `/game/${game.id}` },
      h("span", { class: "players" }, `${playerName(game.players.white)} – ${playerName(game.players.black)}`),
      h(
        "small",
        {},
        `${date} · ${variantName(game.variant_key)} · ${t(`speed.${game.speed}`)} · ${t(game.rated ? "terms.rated" : "terms.casual")}`
      ),
      h(
        "span",
        { class: "outcome" },
        status === "started"
          ? t("profile.live")
          : resultText({ status, variant: game.variant_key, winner: game.winner, reason: game.reason }),
        diff !== undefined && diff !== null ? h("b", {}, ` ${diff > 0 ? "+" : ""}${diff}`) : null
      )
    )
  );
}

export async function mount(container, { username }) {
  let profile;
  let history = [];
  try {
    [profile, { history }] = await Promise.all([
      api("GET", `/api/users/${encodeURIComponent(username)}`),
      api("GET", `/api/users/${encodeURIComponent(username)}/rating-history`),
    ]);
  } catch (e) {
    const text = e.status === 404 ? t("profile.notFound") : e.message;
    container.append(h("section", { class: "card" }, h("h1", {}, username), h("p", {}, text)));
    return { unmount() {} };
  }
  const user = profile.user;
  const me = session.user;
  const counts = profile.count;
  const ratings = h("div", { class: "ratings", id: "ratings" });
  fill(ratings, ...(profile.ratings.length ? profile.ratings.map((r) => ratingCard(r, history)) : [h("p", { class: "muted" }, t("profile.noRatings"))]));

  const list = h("ul", { class: "games", id: "profile-games" });
  const more = h("button", { class: "secondary", id: "more-games", hidden: true }, t("profile.more"));
  let page = 0;
  async function loadPage() {
    page += 1;
    more.disabled = true;
    try {
      const data = await api("GET", `/api/users/${encodeURIComponent(user.username)}/games?page=${page}&per_page=${PER_PAGE}`);
      if (page === 1 && !data.games.length) list.append(h("li", { class: "muted" }, t("profile.noGames")));
      for (const game of data.games) list.append(gameRow(game, user.username));
      more.hidden = page >= data.pages;
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener("click", loadPage);

  const since = new Date(user.created_at).toLocaleDateString(language());
  container.append(
    h(
      "div",
      { class: "profile", dataset: { username: user.username } },
      h(
        "section",
        { class: "card" },
        h("h1", {}, user.username, user.bot ? h("small", { class: "badge" }, ` ${t("profile.bot")}`) : null),
        h("p", { class: "muted" }, t("profile.member", { date: since })),
        h(
          "p",
          { class: "counts", id: "counts" },
          t("profile.counts", { all: counts.all, win: counts.win, loss: counts.loss, draw: counts.draw })
        ),
        profile.playing.length
          ? h("p", {}, t("profile.live"), ": ", profile.playing.map((id) => h("a", { href: `/game/${id}`, class: "live-game" }, ` ${id}`)))
          : null,
        me && me.id !== user.id ? h("a", { class: "button", href: `/?challenge=${encodeURIComponent(user.username)}` }, t("profile.challenge")) : null
      ),
      h("section", { class: "card" }, h("h2", {}, t("profile.ratings")), ratings),
      h("section", { class: "card" }, h("h2", {}, t("profile.games")), list, more)
    )
  );
  await loadPage();
  return { unmount() {} };
}
