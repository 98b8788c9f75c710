// Starts Swagger UI on the server's own OpenAPI document. validatorUrl null
// keeps it from calling the public validator: nothing leaves the machine.
window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/v0/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
});
