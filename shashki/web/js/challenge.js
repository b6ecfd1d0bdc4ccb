// A challenge by link ("play with a friend", /challenge/{link}): its creator sees the link to send and
// waits; anyone else sees who invites them on what terms and takes the seat with one click (anonymously
// if they have no account). Whoever takes it first plays; the game's start reaches the creator on the
// lobby channel (feed.js), which opens the game on their page too. The page also asks again every few
// seconds, so that a creator whose channel was down meanwhile still goes to the game.

import { api, ensureSession, isAnonymous, session } from "./api.js";
import { fill, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { authCard } from "./lobby-auth.js";
import { navigate } from "./router.js";
import { act, card, playerLabel, timeControlLabel, variantName } from "./widgets.js";

const POLL_MS = 3000;

function termsText(c) {
  const mode = t(c.rated ? "terms.rated" : "terms.casual");
  return `${variantName(c.variant)}${c.double_diagonal ? " ⧄" : ""} · ${timeControlLabel(c.time_control)} · ${mode}`;
}

export async function mount(container, { link }) {
  const body = h("div", { id: "friend-challenge" });
  container.append(card("friend", t("friend.title"), body));
  let timer = null;
  let gone = false;

  async function load() {
    let challenge;
    try {
      challenge = (await api("GET", `/api/challenges/open/${encodeURIComponent(link)}`)).challenge;
    } catch (e) {
      fill(body, h("p", { class: "error" }, e.status === 404 ? t("friend.notFound") : e.message), h("a", { href: "/" }, t("nav.lobby")));
      return;
    }
    if (gone) return;
    if (challenge.status === "accepted" && challenge.game_id) {
      navigate(`/game/${challenge.game_id}`, { replace: true });
      return;
    }
    const mine = session.user && challenge.challenger.id === session.user.id;
    if (challenge.status !== "pending") {
      fill(body, h("p", { class: "muted", id: "friend-status" }, t("friend.cancelled")), h("a", { href: "/" }, t("nav.lobby")));
      return;
    }
    if (mine) showLink(challenge);
    else showInvitation(challenge);
  }

  function showLink(challenge) {
    const url = `${location.origin}${challenge.url}`;
    const input = h("input", { id: "friend-link", readonly: true, value: url, "aria-label": t("friend.link"), onFocus: (e) => e.target.select() });
    const copy = h(
      "button",
      {
        type: "button",
        id: "friend-copy",
        onClick: async () => {
          try {
            await navigator.clipboard.writeText(url);
            toast(t("friend.copied"));
          } catch {
            input.select();
          }
        },
      },
      t("friend.copy")
    );
    const cancel = h(
      "button",
      {
        type: "button",
        class: "secondary",
        id: "friend-cancel",
        onClick: (e) =>
          act(e.currentTarget, async () => {
            await api("POST", `/api/challenges/open/${encodeURIComponent(link)}/cancel`, {});
            navigate("/");
          }),
      },
      t("lobby.cancel")
    );
    fill(
      body,
      h("p", {}, t("friend.send")),
      h("div", { class: "row" }, input, copy),
      h("p", { class: "muted" }, termsText(challenge), " · ", t(`color.choose.${challenge.color}`)),
      h("p", { class: "waiting", id: "friend-waiting" }, h("span", { class: "spinner" }), t("friend.waiting")),
      cancel
    );
    timer = setTimeout(poll, POLL_MS);
  }

  async function poll() {
    if (gone) return;
    try {
      const challenge = (await api("GET", `/api/challenges/open/${encodeURIComponent(link)}`)).challenge;
      if (challenge.status === "accepted" && challenge.game_id) return navigate(`/game/${challenge.game_id}`, { replace: true });
      if (challenge.status !== "pending") return load();
    } catch {
      /* asked again below */
    }
    if (!gone) timer = setTimeout(poll, POLL_MS);
  }

  function showInvitation(challenge) {
    // The creator's colour is what they asked for; the friend gets the other one (or a random one).
    const yours = { white: "black", black: "white", random: "random" }[challenge.color];
    const refused = challenge.rated && isAnonymous();
    const join = h(
      "button",
      {
        id: "friend-join",
        disabled: refused,
        onClick: (e) =>
          act(e.currentTarget, async () => {
            await ensureSession();
            try {
              const data = await api("POST", `/api/challenges/open/${encodeURIComponent(link)}/accept`, {});
              navigate(`/game/${data.game.id}`, { replace: true });
            } catch (err) {
              if (err.code === "challenge_taken") toast(t("friend.taken"), "error");
              else throw err;
              load();
            }
          }),
      },
      t("friend.join")
    );
    fill(
      body,
      h("p", { id: "friend-invitation" }, t("friend.invited", { name: playerLabel(challenge.challenger) })),
      h("p", {}, termsText(challenge), " · ", t("friend.yourColor", { color: t(`color.choose.${yours}`) })),
      refused ? h("p", { class: "error" }, t("friend.ratedNeedsAccount")) : null,
      join,
      // Logging in or registering right here: the session's change draws this page again, Join enabled
      // (found by an audit: the header's log-in went to the lobby, which never led back here).
      refused ? authCard() : null
    );
  }

  await load();
  return {
    unmount() {
      gone = true;
      clearTimeout(timer);
    },
  };
}
