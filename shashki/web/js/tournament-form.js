// The form that creates a tournament (any registered player may: issue 13, point 4): its name, system,
// variant, clock, start time, length (minutes of an arena, rounds of a Swiss, one or two cycles of a round
// robin), and its conditions (rated, a password, a minimum rating or number of games).
// The server checks every value; the form only offers what makes sense for the system chosen.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { act, variantSelect } from "./widgets.js";

const SYSTEMS = ["arena", "swiss", "roundrobin"];

function field(label, control, attrs = {}) {
  return h("label", { class: "field", ...attrs }, h("span", {}, label), control);
}

function number(id, value, min, max, step = "1") {
  return h("input", { type: "number", id, name: id, value: String(value), min: String(min), max: String(max), step });
}

/** A whole number from an input, or null when it is left empty. */
function optional(input) {
  return input.value.trim() === "" ? null : Math.round(+input.value);
}

export function createForm() {
  const name = h("input", { type: "text", id: "tournament-name", name: "name", maxlength: "60", required: true, placeholder: t("tournament.namePlaceholder") });
  const system = h(
    "select",
    { id: "tournament-system", name: "system" },
    SYSTEMS.map((key) => h("option", { value: key }, t(`tournament.system.${key}`)))
  );
  const variant = variantSelect({ id: "tournament-variant", name: "variant" });
  const minutes = number("tournament-clock-minutes", 3, 0.5, 180, "0.5");
  const increment = number("tournament-clock-increment", 2, 0, 60);
  const startsAt = h("input", { type: "datetime-local", id: "tournament-starts-at", name: "starts_at" });
  const length = number("tournament-minutes", 45, 1, 720);
  const rounds = number("tournament-rounds", 5, 1, 30);
  const double = h("input", { type: "checkbox", id: "tournament-double", name: "double" });
  const rated = h("input", { type: "checkbox", id: "tournament-rated", name: "rated", checked: true });
  const password = h("input", { type: "text", id: "tournament-password", name: "password", autocomplete: "off", maxlength: "60" });
  const minRating = h("input", { type: "number", id: "tournament-min-rating", name: "min_rating", min: "0", max: "3500", step: "1" });
  const minGames = h("input", { type: "number", id: "tournament-min-games", name: "min_games", min: "0", max: "10000", step: "1" });
  const error = h("p", { class: "error", id: "tournament-error", hidden: true });

  const lengthField = field(t("tournament.duration"), length);
  const roundsField = field(t("tournament.rounds"), rounds);
  const doubleField = h("label", { class: "check", title: t("tournament.doubleHelp") }, double, t("tournament.double"));
  const showLength = () => {
    lengthField.hidden = system.value !== "arena";
    roundsField.hidden = system.value !== "swiss";
    doubleField.hidden = system.value !== "roundrobin";
  };
  system.addEventListener("change", showLength);
  showLength();

  function body() {
    const kind = system.value;
    return {
      name: name.value.trim(),
      system: kind,
      variant: variant.value,
      clock: { initial: Math.round(+minutes.value * 60), increment: Math.round(+increment.value) },
      // The field is the player's local time; the server takes UTC. Empty: the server's default (soon).
      starts_at: startsAt.value ? new Date(startsAt.value).toISOString() : null,
      minutes: kind === "arena" ? Math.round(+length.value) : null,
      rounds: kind === "swiss" ? Math.round(+rounds.value) : null,
      double: kind === "roundrobin" && double.checked,
      rated: rated.checked,
      password: password.value.trim() || null,
      min_rating: optional(minRating),
      min_games: optional(minGames),
    };
  }

  const submit = h("button", { type: "submit", id: "tournament-create" }, t("tournament.create"));
  const form = h(
    "form",
    {
      id: "tournament-form",
      class: "tournament-form",
      onSubmit: (e) => {
        e.preventDefault();
        error.hidden = true;
        act(submit, async () => {
          try {
            const tour = await api("POST", "/api/tournaments", body());
            navigate(`/tournament/${tour.id}`);
          } catch (e) {
            error.textContent = e.message;
            error.hidden = false;
          }
        });
      },
    },
    field(t("tournament.name"), name),
    h(
      "div",
      { class: "terms" },
      field(t("tournament.systemLabel"), system),
      field(t("terms.variant"), variant),
      field(t("time.minutes"), minutes),
      field(t("time.increment"), increment),
      field(t("tournament.startsAt"), startsAt, { title: t("tournament.startsAtHelp") }),
      lengthField,
      roundsField,
      h("div", { class: "row" }, h("label", { class: "check" }, rated, t("terms.rated")), doubleField)
    ),
    h(
      "details",
      { class: "conditions" },
      h("summary", {}, t("tournament.conditions")),
      h(
        "div",
        { class: "terms" },
        field(t("tournament.password"), password),
        field(t("tournament.minRating"), minRating),
        field(t("tournament.minGames"), minGames)
      )
    ),
    error,
    submit
  );
  return form;
}
