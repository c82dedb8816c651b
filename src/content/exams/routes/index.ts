import { createArea } from "../../../core/http/area";
import { examAnalyticsRoutesPart } from "./analytics";
import { examAttemptRoutesPart } from "./exam-attempts";
import { examRoutesPart } from "./exams";
import { sectionRoutesPart } from "./sections";

/** Exams, their sections and exam attempts: one file per subresource. */
export const examRoutes = createArea();
examRoutes.route("/", examRoutesPart);
examRoutes.route("/", sectionRoutesPart);
examRoutes.route("/", examAttemptRoutesPart);
examRoutes.route("/", examAnalyticsRoutesPart);
