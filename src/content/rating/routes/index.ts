import { createArea } from "../../../core/http/area";
import { adjustmentsRoutesPart } from "./adjustments";
import { leaderboardRoutesPart } from "./leaderboard";
import { rulesRoutesPart } from "./rules";
import { studentsRoutesPart } from "./students";
// Campaign audiences gain points_total and rank with the rating area.
import "../audience";

/** Rating: point rules, adjustments, the leaderboard and a student's summary and events; one file per subresource. */
export const ratingRoutes = createArea();
ratingRoutes.route("/", rulesRoutesPart);
ratingRoutes.route("/", adjustmentsRoutesPart);
ratingRoutes.route("/", leaderboardRoutesPart);
ratingRoutes.route("/", studentsRoutesPart);
