import CCAISandbox
import Testing

@Suite struct RedactorTests {
    @Test(arguments: [
        ("My phone number is 4155553423", "My phone number is [phone]"),
        ("call +1 (415) 555-3423 today", "call [phone] today"),
        ("card 4111 1111 1111 1111 please", "card [card] please"),
        ("card 4111-1111-1111-1112 fails Luhn", "card 4111-1111-1111-1112 fails Luhn"),
        ("ssn 123-45-6789", "ssn [ssn]"),
        ("write to ana.b+x@acme.test", "write to [email]"),
        ("order 4417 is late", "order 4417 is late"),
        ("", ""),
    ])
    func redactsSensitiveData(_ text: String, _ expected: String) {
        #expect(Redactor.redact(text) == expected)
    }
}
