import { createArea } from "../../../core/http/area";
import { quizAnalyticsRoutesPart } from "./analytics";
import { questionRoutesPart } from "./questions";
import { quizRoutesPart } from "./quizzes";

/** Quizzes, their questions and analytics: one file per subresource. */
export const quizRoutes = createArea();
quizRoutes.route("/", quizRoutesPart);
quizRoutes.route("/", questionRoutesPart);
quizRoutes.route("/", quizAnalyticsRoutesPart);
