// What the lobby lists, as the lobby channel last sent it: the open seeks, the challenges made to and by
// the player, the player's games in progress and the games anyone is playing now.

import { api, ensureSession, isAnonymous } from "./api.js";
import { clear, fill, h } from "./dom.js";
import { settle } from "./feed.js";
import { declineReasons } from "./meta.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { act, card, playerLabel, playerLink, timeControlLabel, variantName } from "./widgets.js";

function challengeTermsText(c) {
  return `${variantName(c.variant)} · ${timeControlLabel(c.time_control, c.days)} · ${t(c.rated ? "terms.rated" : "terms.casual")}`;
}

/** Answer a challenge; answered or found settled already (409), it is gone from every list. */
async function answering(c, request) {
  try {
    const data = await request();
    settle(c.id);
    return data;
  } catch (e) {
    if (e.code === "challenge_settled") settle(c.id);
    throw e;
  }
}

function gameItem(game) {
  return h(
    "li",
    { dataset: { gameId: game.id } },
    h(
      "a",
      { href: `/game/${game.id}` },
      `${playerLabel(game.white)} – ${playerLabel(game.black)}`,
      h("small", {}, ` ${variantName(game.variant)} · ${timeControlLabel(game.clocks, game.correspondence && game.correspondence.days_per_move)}`)
    )
  );
}

export class LobbyLists {
  /** `me`: the logged-in player or null; `isLive()`: whether the lobby channel is up (seeks may be taken). */
  constructor(me, isLive) {
    this.me = me;
    this.isLive = isLive;
    this.state = { seeks: [], in: [], out: [], playing: [] };
    this.seeksBody = h("tbody");
    this.waiting = h("p", { class: "waiting", id: "waiting", hidden: true });
    this.challengesIn = h("ul", { class: "challenges", id: "challenges-in" });
    this.challengesOut = h("ul", { class: "challenges", id: "challenges-out" });
    this.playingList = h("ul", { class: "games" });
    this.watchList = h("ul", { class: "games" });
    this.challengesBox = card("challenges", t("lobby.challenges"), this.challengesIn, this.challengesOut);
    this.playingBox = card("playing", t("lobby.playing"), this.playingList);
    this.watchBox = card("watch", t("lobby.watch"), this.watchList);
    this.challengesBox.hidden = true;
    this.playingBox.hidden = true;
    this.watchBox.hidden = true;
    const columns = [t("lobby.player"), t("lobby.rating"), t("terms.variant"), t("terms.time"), t("lobby.mode"), t("terms.color"), ""];
    this.seeksTable = h("table", { class: "seeks", id: "seeks" }, h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))), this.seeksBody);
  }

  mine(item) {
    return this.me && item.user.id === this.me.id;
  }

  renderSeeks() {
    const { seeks } = this.state;
    clear(this.seeksBody);
    const mine = seeks.find((s) => this.mine(s));
    this.waiting.hidden = !mine;
    const cancel = (seek) => (e) => act(e.currentTarget, () => api("DELETE", `/api/seeks/${seek.id}`));
    if (mine) {
      fill(
        this.waiting,
        h("span", { class: "spinner" }),
        t("lobby.waiting", { time: timeControlLabel(mine.time_control, mine.days), variant: variantName(mine.variant) }),
        " ",
        h("button", { class: "link", onClick: cancel(mine) }, t("lobby.cancel"))
      );
    }
    if (!seeks.length) {
      this.seeksBody.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, t("lobby.noSeeks"))));
      return;
    }
    for (const seek of seeks) {
      const action = this.mine(seek)
        ? h("button", { class: "secondary cancel-seek", onClick: cancel(seek) }, t("lobby.cancel"))
        : h(
            "button",
            {
              class: "accept-seek",
              // Anyone may take a casual seek (a visitor anonymously); a rated one needs an account.
              disabled: !this.isLive() || (seek.rated && isAnonymous()),
              onClick: (e) =>
                act(e.currentTarget, async () => {
                  await ensureSession();
                  const data = await api("POST", `/api/seeks/${seek.id}/accept`);
                  navigate(`/game/${data.game.id}`);
                }),
            },
            t("lobby.accept")
          );
      this.seeksBody.append(
        h(
          "tr",
          { dataset: { seekId: seek.id, user: seek.user.username } },
          h("td", {}, playerLink(seek.user)),
          // The player's rating in the seek's variant and speed, "?" while provisional (as lichess).
          h("td", { class: "rating" }, seek.rating ? `${seek.rating.rating}${seek.rating.provisional ? "?" : ""}` : ""),
          h("td", {}, variantName(seek.variant), seek.double_diagonal ? " ⧄" : ""),
          // On a phone the mode's column goes and the mode shows under the time control (style.css).
          h(
            "td",
            { class: "time" },
            timeControlLabel(seek.time_control, seek.days),
            h("span", { class: "mode-below" }, t(seek.rated ? "terms.rated" : "terms.casual"))
          ),
          h("td", {}, t(seek.rated ? "terms.rated" : "terms.casual")),
          h("td", {}, t(`color.choose.${seek.color}`)),
          h("td", {}, action)
        )
      );
    }
  }

  renderChallenges() {
    const { state } = this;
    clear(this.challengesIn);
    clear(this.challengesOut);
    const answered = (c) => {
      state.in = state.in.filter((x) => x.id !== c.id);
      state.out = state.out.filter((x) => x.id !== c.id);
      this.renderChallenges();
    };
    for (const c of state.in) {
      const reason = h(
        "select",
        { class: "decline-reason", "aria-label": t("lobby.declineReason") },
        declineReasons().map((r) => h("option", { value: r }, t(`decline.${r}`)))
      );
      const accept = async () => {
        const data = await answering(c, () => api("POST", `/api/challenges/${c.id}/accept`));
        navigate(`/game/${data.game.id}`);
      };
      const decline = async () => {
        await answering(c, () => api("POST", `/api/challenges/${c.id}/decline`, { reason: reason.value }));
        answered(c);
      };
      this.challengesIn.append(
        h(
          "li",
          { dataset: { challengeId: c.id } },
          h("span", {}, t("lobby.challengedBy", { name: playerLabel(c.challenger) }), " — ", challengeTermsText(c)),
          h(
            "span",
            { class: "actions" },
            h("button", { class: "accept-challenge", onClick: (e) => act(e.currentTarget, accept) }, t("lobby.accept")),
            reason,
            h("button", { class: "secondary decline-challenge", onClick: (e) => act(e.currentTarget, decline) }, t("lobby.decline"))
          )
        )
      );
    }
    for (const c of state.out) {
      const cancel = async () => {
        await api("POST", `/api/challenges/${c.id}/cancel`);
        answered(c);
      };
      this.challengesOut.append(
        h(
          "li",
          { dataset: { challengeId: c.id } },
          h("span", {}, t("lobby.challengeTo", { name: playerLabel(c.dest) }), " — ", challengeTermsText(c)),
          h("button", { class: "secondary cancel-challenge", onClick: (e) => act(e.currentTarget, cancel) }, t("lobby.cancel"))
        )
      );
    }
    this.challengesBox.hidden = !this.me || (!state.in.length && !state.out.length);
  }

  renderPlaying() {
    fill(this.playingList, ...this.state.playing.map(gameItem));
    this.playingBox.hidden = !this.state.playing.length;
  }

  /** The games anyone is playing now (the server's list, the latest moves first). */
  renderWatch(games) {
    fill(this.watchList, ...games.map(gameItem));
    this.watchBox.hidden = !games.length;
  }
}
