// The lobby: log in or register; quick pairing, seeks, challenges, the computer; what is open and being
// played, live over the lobby WebSocket (feed.js), which the server keeps current: the page polls nothing.
//
// Its parts: the log-in card (lobby-auth.js), the ways to start a game (lobby-play.js) and the lists
// (lobby-lists.js).

import { isAnonymous, session } from "./api.js";
import { h, toast } from "./dom.js";
import { subscribe } from "./feed.js";
import { t } from "./i18n.js";
import { authCard } from "./lobby-auth.js";
import { LobbyLists } from "./lobby-lists.js";
import { createTabs, quickCard } from "./lobby-play.js";
import { YourTurn } from "./lobby-turns.js";
import { tournamentsCard } from "./lobby-tournaments.js";
import { dailyPuzzleCard } from "./puzzle-daily.js";
import { card, playerLabel } from "./widgets.js";

export async function mount(container) {
  const me = session.user;
  const logged = !!me;
  // A visitor without an account plays at once (an anonymous session is made at their first action,
  // api.js ensureSession); the log-in card stays beside the forms.
  const anonymous = isAnonymous();
  let live = false; // whether the lobby channel is up (see setLive)
  const lists = new LobbyLists(me, () => live);
  const tabs = createTabs({ anonymous });
  // The games waiting for the player's move (lobby-turns.js); an anonymous visitor plays no correspondence.
  const yourTurn = logged && !anonymous ? new YourTurn() : null;
  const tournaments = tournamentsCard();

  container.append(
    h(
      "div",
      { class: "lobby" },
      h(
        "div",
        { class: "column" },
        quickCard(lists.waiting, { anonymous }),
        card("create", t("lobby.create"), tabs),
        anonymous && me ? h("p", { class: "muted", id: "anon-keep" }, t("anon.keepGames")) : null,
        anonymous ? authCard() : null
      ),
      h(
        "div",
        { class: "column" },
        yourTurn && yourTurn.box,
        lists.challengesBox,
        lists.playingBox,
        card("open-seeks", t("lobby.seeks"), lists.seeksTable),
        lists.watchBox,
        dailyPuzzleCard().el,
        tournaments.el,
        card(
          "about",
          t("lobby.aboutTitle"),
          h("p", {}, t("lobby.about")),
          h("p", {}, h("a", { href: "/rules/russian-giveaway" }, t("lobby.readRules")))
        )
      )
    )
  );
  lists.renderSeeks();
  if (anonymous && location.hash === "#login") container.querySelector("#username")?.focus();
  // From a profile's "Challenge" button: /?challenge=name opens the challenge form for that player.
  const challenged = new URLSearchParams(location.search).get("challenge");
  if (logged && !anonymous && challenged) {
    tabs.challenge(challenged);
    container.querySelector("#create")?.scrollIntoView();
  }

  // -- live: the lobby channel keeps the lists current -------------------------------------------------
  // Games are started only while the channel is up: the news that a game has started (and opens it) comes
  // through it, so nothing is offered before its first lists have arrived or while it is down.
  function setLive(value) {
    live = value;
    for (const button of container.querySelectorAll("[data-needs-live]")) button.disabled = !live;
    lists.renderSeeks();
  }
  const { state } = lists;
  const unsubscribe = subscribe((message) => {
    if (yourTurn) yourTurn.heard(message);
    switch (message.type) {
      case "offline":
        setLive(false);
        break;
      case "seeks":
        state.seeks = message.seeks;
        if (!live) setLive(true);
        else lists.renderSeeks();
        break;
      case "challenges":
        state.in = message.in;
        state.out = message.out;
        lists.renderChallenges();
        break;
      case "playing":
        state.playing = message.games;
        lists.renderPlaying();
        break;
      case "nowPlaying":
        lists.renderWatch(message.games);
        break;
      case "challenge":
        state.in = [...state.in.filter((c) => c.id !== message.challenge.id), message.challenge];
        lists.renderChallenges();
        toast(t("lobby.challengedBy", { name: playerLabel(message.challenge.challenger) }));
        break;
      case "challengeCancelled":
      case "challengeDeclined":
      case "challengeAccepted":
      case "challengeSettled":
        state.in = state.in.filter((c) => c.id !== message.id);
        state.out = state.out.filter((c) => c.id !== message.id);
        lists.renderChallenges();
        break;
      case "gameFinish":
        state.playing = state.playing.filter((g) => g.id !== message.game);
        lists.renderPlaying();
        break;
    }
  });

  return {
    unmount() {
      unsubscribe();
      if (yourTurn) yourTurn.close();
      tournaments.stop();
    },
  };
}
