import { createLmsClient, unwrap } from "@lms/client";
const lms = createLmsClient({ baseUrl: "http://localhost:8787", tenant: "demo" });
await lms.signIn({ email: "admin@demo.test", password: "demo12345" });
const { users } = unwrap(await lms.GET("/api/v1/t/users", { params: { query: { role: "student" } } }));
console.log(users.map((user) => user.email));
