import { createArea } from "../../../core/http/area";
import { attemptRoutesPart } from "./attempts";
import { gradingRoutesPart } from "./grading";
import { extensionRoutesPart } from "./extension";

/** Quiz attempts (the student flow) and the curators' attempt list and grading. */
export const attemptRoutes = createArea();
attemptRoutes.route("/", attemptRoutesPart);
attemptRoutes.route("/", gradingRoutesPart);
attemptRoutes.route("/", extensionRoutesPart);
