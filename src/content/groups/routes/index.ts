import { createArea } from "../../../core/http/area";
import { courseGroupsRoutes } from "./course-groups";
import { groupsRoutes } from "./groups";
import { membersRoutes } from "./members";

/** Groups, their members, and the groups enrolled in courses: one file per subresource. */
export const groupRoutes = createArea();
groupRoutes.route("/", groupsRoutes);
groupRoutes.route("/", membersRoutes);
groupRoutes.route("/", courseGroupsRoutes);
