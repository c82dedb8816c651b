import { createArea } from "../../../core/http/area";
import { assignmentRoutesPart } from "./assignments";
import { attachmentRoutesPart } from "./attachments";
import { groupTargetRoutesPart } from "./group-targets";

/** Assignments, their attachments and group targets: one file per subresource. */
export const assignmentRoutes = createArea();
assignmentRoutes.route("/", assignmentRoutesPart);
assignmentRoutes.route("/", attachmentRoutesPart);
assignmentRoutes.route("/", groupTargetRoutesPart);
