// The leaderboard, as lichess's /player: /leaderboard[/{variant}] the ten best players of each speed of a
// variant (the default one at /leaderboard), /leaderboard/{variant}/{speed} the hundred best of one speed.
//
// Only established ratings are listed (the server's `Ratings.leaderboard`: GET /api/leaderboards/{variant}
// and /api/leaderboards/{variant}/{speed}); a provisional rating ("1500?") has too few games to rank.

import { api } from "./api.js";
import { h } from "./dom.js";
import { variant, variants } from "./geometry.js";
import { t } from "./i18n.js";
import { playerLink, variantName } from "./widgets.js";

const TOP = 100; // players on the page of one speed

/** The players of one board: rank, name (linked to the profile), rating and, on a speed's own page, games. */
function table(players, { games = false } = {}) {
  const head = [["rank", t("leaderboard.rank")], ["name", t("leaderboard.player")], ["elo", t("leaderboard.rating")]];
  if (games) head.push(["games", t("leaderboard.games")]);
  return h(
    "table",
    { class: "leaderboard" },
    h("thead", {}, h("tr", {}, head.map(([name, text]) => h("th", { scope: "col", class: name }, text)))),
    h(
      "tbody",
      {},
      players.map((row) =>
        h(
          "tr",
          { dataset: { username: row.user.username } },
          h("td", { class: "rank" }, String(row.rank)),
          h("td", { class: "name" }, playerLink(row.user)),
          h("td", { class: "elo" }, String(row.rating)),
          games ? h("td", { class: "games" }, String(row.games)) : null
        )
      )
    )
  );
}

function empty() {
  return h("p", { class: "muted empty" }, t("leaderboard.empty"));
}

/** The variants as links, the one shown marked as the current page. */
function variantLinks(shown) {
  return h(
    "nav",
    { class: "leaderboard-variants", id: "leaderboard-variants", "aria-label": t("leaderboard.variants") },
    variants().map((v) =>
      h(
        "a",
        { href: `/leaderboard/${v.key}`, dataset: { variant: v.key }, "aria-current": v.key === shown ? "page" : null },
        variantName(v.key)
      )
    )
  );
}

export async function mount(container, { variant: asked, speed }) {
  const key = variant(asked).key; // an alias in the address names its variant; none, the default one
  const section = h("section", { class: "leaderboard-page", id: "leaderboard", dataset: { variant: key } });
  container.append(section);
  // A variant the site does not have is no page (as a speed it does not have), not the default one's.
  const known = !asked || asked === key || variant(asked).aliases.includes(asked);
  try {
    if (!known) throw Object.assign(new Error(t("notFound.title")), { code: "unknown_variant" });
    if (speed) {
      const { players } = await api("GET", `/api/leaderboards/${key}/${encodeURIComponent(speed)}?limit=${TOP}`);
      section.dataset.speed = speed;
      section.append(
        h("h1", {}, t("leaderboard.topOf", { count: TOP, variant: variantName(key), speed: t(`speed.${speed}`) })),
        h("p", {}, h("a", { href: `/leaderboard/${key}` }, t("leaderboard.allSpeeds"))),
        h("div", { class: "card table-scroll" }, players.length ? table(players, { games: true }) : empty())
      );
    } else {
      const { speeds } = await api("GET", `/api/leaderboards/${key}`);
      section.append(
        h("h1", {}, t("leaderboard.title")),
        variantLinks(key),
        h("p", { class: "muted" }, t("leaderboard.note")),
        h(
          "div",
          { class: "leaderboard-boxes" },
          Object.entries(speeds).map(([name, players]) =>
            h(
              "section",
              { class: "card leaderboard-box", dataset: { speed: name } },
              h("h2", {}, t(`speed.${name}`)),
              players.length ? table(players) : empty(),
              players.length ? h("a", { class: "more", href: `/leaderboard/${key}/${name}` }, t("leaderboard.more", { count: TOP })) : null
            )
          )
        )
      );
    }
  } catch (e) {
    section.append(h("h1", {}, t("leaderboard.title")), h("p", { class: "error" }, ["bad_speed", "unknown_variant"].includes(e.code) ? t("notFound.title") : e.message));
  }
  return { unmount() {} };
}
