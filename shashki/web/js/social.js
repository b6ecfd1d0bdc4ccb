// Following and blocking on the profile page: the buttons on another player's profile, and on one's own
// profile the players one follows (online, playing now with a link to the game) and those one blocks.
// The server acts for the session's own account only (/api/rel/...).

import { api } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";

const rel = (action, username) => `/api/rel/${action}/${encodeURIComponent(username)}`;

/** Follow and block buttons for another player's profile. */
export function relationButtons(username) {
  const box = h("div", { class: "relation", id: "relation" });
  let state = { following: false, blocking: false };
  const follow = h("button", { class: "secondary", id: "follow-button", type: "button" });
  const block = h("button", { class: "secondary danger", id: "block-button", type: "button" });

  function draw() {
    follow.textContent = t(state.following ? "social.unfollow" : "social.follow");
    follow.setAttribute("aria-pressed", String(state.following));
    follow.dataset.following = String(state.following);
    follow.hidden = state.blocking; // one does not follow whom one blocks
    block.textContent = t(state.blocking ? "social.unblock" : "social.block");
    block.setAttribute("aria-pressed", String(state.blocking));
    block.dataset.blocking = String(state.blocking);
  }

  async function change(action, done) {
    try {
      await api("POST", rel(action, username));
      state = await api("GET", rel("status", username));
      draw();
      toast(t(done, { name: username }));
    } catch (e) {
      toast(e.message, "error");
    }
  }

  follow.addEventListener("click", () => change(state.following ? "unfollow" : "follow", state.following ? "social.unfollowed" : "social.followed"));
  // No confirmation: a block is undone as easily, from here or from one's own profile.
  block.addEventListener("click", () => change(state.blocking ? "unblock" : "block", state.blocking ? "social.unblocked" : "social.blocked"));
  api("GET", rel("status", username))
    .then((s) => {
      state = s;
      draw();
    })
    .catch(() => (box.hidden = true));
  draw();
  box.append(follow, block);
  return box;
}

function followingItem(player) {
  const status = player.playing.length ? "playing" : player.online ? "online" : "offline";
  return h(
    "li",
    { class: `followed ${status}`, dataset: { username: player.username, status } },
    h("span", { class: "presence-dot", "aria-hidden": "true" }),
    h("a", { href: `/@/${encodeURIComponent(player.username)}` }, player.username),
    " ",
    h("small", { class: "muted" }, t(`social.${status}`)),
    player.playing.map((id) => h("a", { class: "watch", href: `/game/${id}`, dataset: { gameId: id } }, t("social.watch")))
  );
}

/** One's own following and blocking lists, kept up to date while the page is open. Returns {el, unmount}. */
export function ownLists() {
  const following = h("ul", { class: "following", id: "following" });
  const blocking = h("ul", { class: "blocking", id: "blocking" });

  async function load() {
    try {
      const [{ following: f }, { blocking: b }] = await Promise.all([api("GET", "/api/rel/following"), api("GET", "/api/rel/blocking")]);
      fill(following, ...(f.length ? f.map(followingItem) : [h("li", { class: "muted" }, t("social.noFollowing"))]));
      fill(
        blocking,
        ...(b.length
          ? b.map((p) =>
              h(
                "li",
                { dataset: { username: p.username } },
                h("a", { href: `/@/${encodeURIComponent(p.username)}` }, p.username),
                " ",
                h(
                  "button",
                  {
                    class: "link unblock",
                    type: "button",
                    onClick: async () => {
                      await api("POST", rel("unblock", p.username)).catch((e) => toast(e.message, "error"));
                      load();
                    },
                  },
                  t("social.unblock")
                )
              )
            )
          : [h("li", { class: "muted" }, t("social.noBlocking"))])
      );
    } catch (e) {
      fill(following, h("li", { class: "muted" }, e.message));
    }
  }

  // A followed player starting a game, or games starting and ending: the list is read again.
  const unsubscribe = subscribe((message) => {
    if (message.type === "followingStarted" || message.type === "nowPlaying") load();
  });
  load();
  const el = h(
    "section",
    { class: "card", id: "social" },
    h("h2", {}, t("social.following")),
    following,
    h("details", { class: "blocked-list" }, h("summary", {}, t("social.blockingTitle")), h("p", { class: "muted" }, t("social.blockingPrivate")), blocking)
  );
  return { el, unmount: unsubscribe };
}
