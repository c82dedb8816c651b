import { createArea } from "../../core/http/area";

/** The school-wide screenshot policy over lessons, quizzes, assignments and exams. */
export const screenshotRoutes = createArea();
