extension SandboxConfiguration {
    /// The built-in company: every channel kind, a direct access point, after-hours and
    /// over-capacity deflection, every recording option, nested and hidden queues, two
    /// languages, human agents and a virtual agent (Nova, on the night desk), a pre-session
    /// smart action (Devices), a custom form with every question type and a web form, and
    /// overlapping post-session rules: CSAT company-wide, a survey on Billing, a
    /// post-session virtual agent on Technical Support (its queues inherit it), a survey
    /// with opt-in on VIP, none on the Night Desk.
    /// `ccai sandbox serve` and `ccai run` use it unless given another.
    public static let builtInSource = """
        return {
          company = {
            name = "Acme", support_email = "help@acme.test", languages = { "en", "es" },
            time_zone = "America/Los_Angeles", prevent_direct_pstn_call = false,
            key = "dev-key", secret = "dev-secret", jwt_algorithms = { "HS384", "HS256" }, subdomain = "acme",
            post_session = { csat = true },
          },
          hours = { mon = "09:00-17:00", tue = "09:00-17:00", wed = "09:00-17:00", thu = "09:00-17:00",
                    fri = "09:00-17:00", sat = false, sun = false },
          handle_time_seconds = 300,
          chat_timeout_seconds = 1800,
          menus = {
            { id = 1, name = { en = "Billing", es = "Facturación" }, position = 1,
              direct_access_keys = { "order-help" },
              after_hours_message = { en = "We are closed. Our night desk can help.",
                                      es = "Estamos cerrados. Nuestro turno de noche puede ayudarle." },
              channels = {
                chat = { redaction = true },
                voice_call = { instant = true, schedule = true, recording = "ask_user", phone_number = "+14155550100" },
                email = { email = "billing@acme.test", instruction_message = "Add your account number" },
                external_deflection_link = { links = {
                  { display_name = "Help Center", url = "https://help.acme.test", enabled = true },
                  { display_name = "Old FAQ", url = "https://faq.acme.test", enabled = false } } },
              },
              capacity = { max_waiting = 5, wait_threshold_seconds = 600 },
              deflection = { after_hours = 7, over_capacity = 8 },
              post_session = { survey = "billing-survey" },
            },
            { id = 2, name = { en = "Technical Support", es = "Soporte técnico" }, position = 2,
              post_session = { virtual_agent = "feedback-va" },
              children = {
                { id = 21, name = { en = "Devices", es = "Dispositivos" }, position = 1,
                  pre_session_smart_action = true,
                  channels = { chat = {}, voice_call = { instant = true, recording = "always" } } },
                { id = 22, name = { en = "Internet", es = "Internet" }, position = 2,
                  channels = { voice_call = { instant = true, schedule = true, recording = "never",
                                              pre_session_smart_action = true } } },
              },
            },
            { id = 3, name = { en = "Sales", es = "Ventas" }, position = 3,
              channels = { email = { email = "sales@acme.test" } } },
            { id = 7, name = { en = "Night Desk", es = "Turno de noche" }, position = 4,
              hours = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true },
              channels = { chat = { virtual_agent = "night-va" } }, post_session = { csat = false } },
            { id = 8, name = { en = "Overflow", es = "Desborde" }, position = 5,
              hours = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true },
              channels = { chat = {}, voice_call = { instant = true, recording = "never" } } },
            { id = 9, name = { en = "VIP", es = "VIP" }, hidden = true, direct_access_keys = { "vip" },
              hours = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true },
              post_session = { survey = "vip-survey", opt_in = true },
              channels = { chat = {}, voice_call = { instant = true, recording = "always" } } },
          },
          agents = {
            { name = "Ava", menus = { 1, 2, 21, 22, 9 } },
            { name = "Ben", menus = { 3, 7, 8 } },
          },
          virtual_agents = {
            ["night-va"] = {
              name = "Nova",
              rules = {
                { keywords = { "hours", "open" },
                  answer = "Our day desks are open 9:00-17:00, Monday to Friday (Los Angeles time). I'm here around the clock." },
                { keywords = { "refund", "refunds" }, answer = "Refunds reach your card within 5 business days." },
                { keywords = { "password", "login", "sign in" }, answer = "You can reset your password from the sign-in page." },
              },
              escalation_options = { { id = 1, deflection_channel = "chat" }, { id = 2, deflection_channel = "email" } },
            },
            ["feedback-va"] = {
              name = "Quinn",
              rules = {
                { keywords = { "yes", "sure", "ok" }, answer = "Thanks! On a scale of 1 to 5, how likely are you to recommend us?" },
                { keywords = { "1", "2", "3", "4", "5" }, answer = "Noted, thank you for your feedback." },
              },
            },
          },
          surveys = {
            ["billing-survey"] = { id = 1,
              sign_off_display_text = { en = "Thank you for your feedback!", es = "¡Gracias por sus comentarios!" },
              questions = {
                { id = 1, type = "csat", text = { en = "How satisfied are you with our help?", es = "¿Qué tan satisfecho está?" },
                  required = true },
                { id = 2, type = "star_rating", text = { en = "Rate your agent", es = "Califique a su agente" } },
                { id = 3, type = "enumeration", text = { en = "What was your issue about?", es = "¿De qué trataba?" },
                  options = { "invoice", "refund", "other" }, required = true },
                { id = 4, type = "numeric_scale", text = { en = "How likely are you to recommend us?", es = "¿Nos recomendaría?" },
                  min = 0, max = 10 },
                { id = 5, type = "free_text", text = { en = "Anything else?", es = "¿Algo más?" } },
              } },
            ["vip-survey"] = { id = 2, sign_off_display_text = "Thank you, valued customer.",
              questions = {
                { id = 1, type = "star_rating", text = "How was your VIP experience?", required = true },
                { id = 2, type = "free_text", text = "What could we do better?" },
              } },
          },
          custom_forms = {
            { id = 10, name = "contact", title = "Contact details", subtitle = "So that we can get back to you",
              questions = {
                { id = 1, type = "text", text = "Name", required = true },
                { id = 2, type = "email", text = "E-mail", required = true },
                { id = 3, type = "phone", text = "Phone", placeholder = "+1 415 555 0100" },
                { id = 4, type = "number", text = "Order number", min = 1 },
                { id = 5, type = "date", text = "Order date" },
                { id = 6, type = "dropdown", text = "Product",
                  options = { { value = "phone", label = "Phone" }, { value = "tablet", label = "Tablet" } } },
                { id = 7, type = "radio", text = "Contact me by",
                  options = { { value = "email", label = "E-mail" }, { value = "sms", label = "Text message" } } },
                { id = 8, type = "multiple_choice", text = "Topics",
                  options = { { value = "billing" }, { value = "delivery" }, { value = "repair" } } },
                { id = 9, type = "long_text", text = "What happened?" },
                { id = 10, type = "checkbox", text = "I accept the privacy policy", required = true },
              } },
          },
          web_forms = {
            { external_form_id = "form123", title = "Refund request", url = "https://forms.acme.test/refund",
              questions = { { id = 1, type = "number", text = "Amount", required = true, min = 1 },
                            { id = 2, type = "text", text = "Reason" } } },
          },
        }
        """
}
