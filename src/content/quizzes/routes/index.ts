import { createArea } from "../../../core/http/area";
import { questionRoutesPart } from "./questions";
import { quizRoutesPart } from "./quizzes";

/** Quizzes and their questions: one file per subresource. */
export const quizRoutes = createArea();
quizRoutes.route("/", quizRoutesPart);
quizRoutes.route("/", questionRoutesPart);
