"""The sandbox's console, driven in headless Chromium (Debian's chromium and
chromium-driver, Selenium from PyPI) as a person uses it, against `ccai run --console`:
a VU of a running scenario starts a chat and writes markup; the person signs in with the
admin token ("Admin token", "Sign in"), takes the chat ("Take"), reads the customer's
markup as text, answers ("Message", "Send"); the VU's check on the answer passes and the
run exits 0. A screenshot of the console goes to docs/images/.
Usage: python console_test.py CCAI_BINARY FOLDER SCREENSHOT_FOLDER
"""
import os
import subprocess
import sys

from browser import chrome, start
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ccai, folder, screenshots = sys.argv[1], sys.argv[2], sys.argv[3]
run, url = start([ccai, "run", os.path.join(folder, "console-customer.lua"), "--sandbox",
                  os.path.join(folder, "console-sandbox.lua"), "--console", "127.0.0.1:0"],
                 r"console: (http://127\.0\.0\.1:\d+/console)", "console_test")
driver = chrome(1200, 900)
wait = WebDriverWait(driver, 60, poll_frequency=0.2)


def act(find, action):
    """Finds an element and acts on it, again if the page redrew it in between (it redraws
    its state every second)."""
    def attempt(d):
        try:
            action(find(d))
            return True
        except StaleElementReferenceException:
            return False
    wait.until(attempt)


markup = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"

try:
    driver.get(url)
    token = driver.find_element(By.XPATH, "//label[normalize-space()='Admin token']/following::input[1]")
    token.send_keys("browser-test-admin-token")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    act(lambda d: d.find_element(By.XPATH, "//button[normalize-space()='Take']"), lambda button: button.click())
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[aria-label='Message']"))
    wait.until(lambda d: any(span.text == markup for span in d.find_elements(By.CSS_SELECTOR, ".messages span")))
    assert not driver.find_elements(By.CSS_SELECTOR, ".messages img, .messages script"), "the customer's text became markup"
    assert driver.title != "pwned", "the customer's text ran as script"
    assert not driver.find_element(By.ID, "sign-in").is_displayed(), "the sign-in form stays once signed in"
    print("console_test: signed in, took the chat, and the customer's markup is shown as text")
    def type_answer(d):
        # Typed again whole when the page redrew the box in between (a half-typed answer
        # would fail the VU's check).
        try:
            box = d.find_element(By.CSS_SELECTOR, "input[aria-label='Message']")
            box.clear()
            box.send_keys("Hello from the console")
            return box.get_attribute("value") == "Hello from the console"
        except StaleElementReferenceException:
            return False
    wait.until(type_answer)
    for name in ["Send", "Send file", "Request", "Send form", "Transfer", "End chat"]:
        assert driver.find_element(By.XPATH, f"//button[normalize-space()='{name}']").is_displayed(), f"no {name} button"
    os.makedirs(screenshots, exist_ok=True)
    driver.save_screenshot(os.path.join(screenshots, "console.png"))
    act(lambda d: d.find_element(By.XPATH, "//button[normalize-space()='Send']"), lambda button: button.click())

    def sent(d):
        # The answer went and the page refreshed. Or the VU, answered, ended its chat and its
        # run at once, and the console went with the run before the page's refresh after
        # the send could reach it: the run's exit and its check, below, say whether the
        # answer arrived.
        return run.poll() is not None or d.find_element(By.ID, "message").text == ""
    try:
        wait.until(sent)
    except Exception:
        sys.exit("console_test: sending failed: " + driver.find_element(By.ID, "message").text)

    def answered(d):
        # The answer shows in the chat, or the VU, answered, has ended it (or its run) already.
        if run.poll() is not None:
            return True
        try:
            texts = [element.text for element in d.find_elements(By.CSS_SELECTOR, "#chats span, #chats p")]
        except StaleElementReferenceException:
            return False
        return "Hello from the console" in texts or "None: take a waiting chat." in texts
    wait.until(answered)
    print("console_test: answered from the console")
finally:
    driver.quit()

try:
    output, errors = run.communicate(timeout=120)
except subprocess.TimeoutExpired:
    run.kill()
    sys.exit("console_test: the run did not end after the answer")
if run.returncode != 0 or "checks" not in output or "✓ 1" not in output:
    sys.exit(f"console_test: the VU's check did not pass (exit {run.returncode}):\n{output}\n{errors}")
print("console_test: the VU's check on the answer passed; OK")
