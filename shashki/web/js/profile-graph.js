// A player's rating over time in one variant and speed, drawn as inline SVG (no chart library): the
// rating after each rated game, placed by its date, with the lowest and highest ratings on the left and
// the first and last dates below. Each point names its date, rating and game on hover (<title>).

import { s } from "./dom.js";
import { language, t } from "./i18n.js";

const W = 320;
const H = 130;
const LEFT = 36; // room for the ratings
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 18; // room for the dates

function dateLabel(at) {
  return new Date(at).toLocaleDateString(language(), { month: "short", day: "numeric" });
}

/**
 * The graph of `points` ([{at, rating, game_id}], oldest first), or null without points. Dates place the
 * points; when every point has the same time (several games within a minute) they are spread evenly.
 */
export function ratingGraph(points, label) {
  if (!points.length) return null;
  const times = points.map((p) => new Date(p.at).getTime());
  const ratings = points.map((p) => p.rating);
  const first = Math.min(...times);
  const span = Math.max(...times) - first;
  const byTime = span >= 60_000;
  const low = Math.min(...ratings);
  const high = Math.max(...ratings);
  const pad = Math.max(10, Math.round((high - low) * 0.1));
  const bottom = low - pad;
  const top = high + pad;
  const width = W - LEFT - RIGHT;
  const height = H - TOP - BOTTOM;
  const x = (i) =>
    LEFT + (points.length === 1 ? width / 2 : byTime ? ((times[i] - first) / span) * width : (i / (points.length - 1)) * width);
  const y = (r) => TOP + (1 - (r - bottom) / (top - bottom)) * height;
  const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`);
  const peak = ratings.indexOf(high);
  return s(
    "svg",
    {
      class: "rating-graph",
      viewBox: `0 0 ${W} ${H}`,
      role: "img",
      "aria-label": t("profile.graphLabel", { what: label, from: ratings[0], to: ratings[ratings.length - 1], count: points.length }),
      "data-points": String(points.length),
    },
    // The frame: the highest and lowest rating, a line at each, the first and last date.
    s("line", { class: "grid", x1: LEFT, x2: W - RIGHT, y1: y(high), y2: y(high) }),
    s("line", { class: "grid", x1: LEFT, x2: W - RIGHT, y1: y(low), y2: y(low) }),
    s("text", { class: "axis", x: LEFT - 4, y: y(high) + 4, "text-anchor": "end" }, String(high)),
    high !== low ? s("text", { class: "axis", x: LEFT - 4, y: y(low) + 4, "text-anchor": "end" }, String(low)) : null,
    s("text", { class: "axis", x: LEFT, y: H - 4, "text-anchor": "start" }, dateLabel(points[0].at)),
    points.length > 1 ? s("text", { class: "axis", x: W - RIGHT, y: H - 4, "text-anchor": "end" }, dateLabel(points[points.length - 1].at)) : null,
    points.length > 1 ? s("polyline", { class: "line", points: coords.join(" ") }) : null,
    points.map((p, i) =>
      s(
        "circle",
        { class: i === peak ? "point peak" : "point", cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: i === peak ? 3.5 : 2.5 },
        s("title", {}, `${new Date(p.at).toLocaleString(language())}: ${p.rating}`)
      )
    )
  );
}
