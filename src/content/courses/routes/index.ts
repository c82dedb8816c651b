import { createArea } from "../../../core/http/area";
import { blockRoutes } from "./blocks";
import { courseRoutes } from "./courses";
import { lessonRoutes } from "./lessons";
import { moduleRoutes } from "./modules";

/** The course tree, one file per subresource (courses, modules, lessons, blocks and completion). */
export const coursesRoutes = createArea();
coursesRoutes.route("/", courseRoutes);
coursesRoutes.route("/", moduleRoutes);
coursesRoutes.route("/", lessonRoutes);
coursesRoutes.route("/", blockRoutes);
