// A player's profile: for each variant and speed the current rating, its peak, the games played and a graph
// of the rating over time (profile-graph.js); the games played, filtered and paged (profile-games.js), each
// opening on the game page; follow and block buttons, and on one's own profile the players one follows and
// blocks (social.js).

import { api, session } from "./api.js";
import { h } from "./dom.js";
import { language, t } from "./i18n.js";
import { gamesCard } from "./profile-games.js";
import { ratingGraph } from "./profile-graph.js";
import { ownLists, relationButtons } from "./social.js";
import { variantName } from "./widgets.js";

function ratingCard(rating, history) {
  const points = (history.find((g) => g.variant === rating.variant && g.speed === rating.speed) || {}).points || [];
  const label = `${variantName(rating.variant)} · ${t(`speed.${rating.speed}`)}`;
  const peak = Math.max(rating.rating, ...points.map((p) => p.rating));
  return h(
    "div",
    { class: "rating", dataset: { variant: rating.variant, speed: rating.speed } },
    h("span", {}, label),
    h("strong", { class: "current" }, rating.rating, rating.provisional ? "?" : ""),
    h(
      "small",
      { class: "muted figures" },
      h("span", { class: "peak-rating" }, t("profile.peak", { rating: peak })),
      " · ",
      h("span", { class: "count" }, t("profile.gamesCount", { count: rating.games })),
      rating.provisional ? ` · ${t("profile.provisional")}` : ""
    ),
    ratingGraph(points, label),
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
  const mine = me && me.id === user.id;
  const counts = profile.count;
  const ratings = h(
    "div",
    { class: "ratings", id: "ratings" },
    ...(profile.ratings.length ? profile.ratings.map((r) => ratingCard(r, history)) : [h("p", { class: "muted" }, t("profile.noRatings"))])
  );
  const games = gamesCard(user.username);
  const lists = mine ? ownLists() : null;

  const since = new Date(user.created_at).toLocaleDateString(language());
  container.append(
    h(
      "div",
      { class: "profile", dataset: { username: user.username } },
      h(
        "section",
        { class: "card" },
        h(
          "h1",
          {},
          user.username,
          user.bot ? h("small", { class: "badge" }, ` ${t("profile.bot")}`) : null,
          // Closed by its owner (the server's accounts/security.py): its games stay, nobody challenges it.
          user.closed ? h("small", { class: "badge", id: "profile-closed" }, ` ${t("profile.closed")}`) : null
        ),
        h("p", { class: "muted" }, t("profile.member", { date: since })),
        h(
          "p",
          { class: "counts", id: "counts" },
          t("profile.counts", { all: counts.all, win: counts.win, loss: counts.loss, draw: counts.draw })
        ),
        profile.playing.length
          ? h("p", {}, t("profile.live"), ": ", profile.playing.map((id) => h("a", { href: `/game/${id}`, class: "live-game" }, ` ${id}`)))
          : null,
        me && !mine && !user.closed
          ? h(
              "div",
              { class: "actions" },
              h("a", { class: "button", href: `/?challenge=${encodeURIComponent(user.username)}` }, t("profile.challenge")),
              relationButtons(user.username)
            )
          : null
      ),
      h("section", { class: "card" }, h("h2", {}, t("profile.ratings")), ratings),
      lists ? lists.el : null,
      games.el
    )
  );
  await games.load();
  return {
    unmount() {
      if (lists) lists.unmount();
    },
  };
}
