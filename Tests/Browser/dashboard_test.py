"""The dashboard of `ccai run --dashboard`, driven in headless Chromium (Debian's chromium
and chromium-driver, Selenium from PyPI), as a person uses it:

1. the page shows the VUs and iterations of a running scenario;
2. a check whose name is markup is shown as text (no element made from it, no script run);
3. Pause stops arrivals: the iterations stay put while the dropped ones grow;
4. Stop ends the run as Ctrl-C does (exit 130) and the page offers the HTML report.

Screenshots of the running and the paused page go to docs/images/ (docs/dashboard.md shows them).
Usage: python dashboard_test.py CCAI_BINARY SCRIPT SCREENSHOT_FOLDER
"""
import os
import subprocess
import sys

from browser import chrome, start
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ccai, script, screenshots = sys.argv[1], sys.argv[2], sys.argv[3]
run, url = start([ccai, "run", script, "--quiet", "--dashboard", "127.0.0.1:0"],
                 r"dashboard: (http://127\.0\.0\.1:\d+/)", "dashboard_test")
driver = chrome(1280, 1400)
wait = WebDriverWait(driver, 60, poll_frequency=0.2)


def number(element_id):
    text = driver.find_element(By.ID, element_id).text
    return int(text) if text.isdigit() else -1


def button(name):
    return driver.find_element(By.XPATH, f"//button[normalize-space()='{name}']")


try:
    driver.get(url)
    wait.until(lambda d: number("vus") > 0 and number("iterations") > 2)
    print(f"dashboard_test: the page shows {number('vus')} VUs and {number('iterations')} iterations")

    markup = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
    def shown(d):
        try:
            return any(cell.text == markup for cell in d.find_elements(By.CSS_SELECTOR, "#checks td"))
        except StaleElementReferenceException:
            return False
    wait.until(shown)
    assert not driver.find_elements(By.CSS_SELECTOR, "#checks img, #checks script"), "a check's name became markup"
    assert driver.title != "pwned", "a check's name ran as script"
    print("dashboard_test: a check named with markup is shown as text")
    os.makedirs(screenshots, exist_ok=True)
    driver.save_screenshot(os.path.join(screenshots, "dashboard-running.png"))

    button("Pause").click()
    wait.until(lambda d: d.find_element(By.ID, "state").text == "paused" and number("vus") == 0)
    paused_at = number("iterations")
    dropped = number("dropped")
    wait.until(lambda d: number("dropped") >= dropped + 3)
    assert number("iterations") == paused_at, f"iterations went on while paused: {paused_at} -> {number('iterations')}"
    print(f"dashboard_test: paused, iterations stay at {paused_at} while {number('dropped') - dropped} arrivals are dropped")
    driver.save_screenshot(os.path.join(screenshots, "dashboard-paused.png"))

    def set_rate(text):
        """Types `text` as the rate and clicks Set, again if the page redrew the field first."""
        def attempt(d):
            try:
                field = d.find_element(By.CSS_SELECTOR, "input[aria-label='Rate of customers']")
                field.click()   # a focused field is not redrawn
                field.clear()
                field.send_keys(text)
                d.find_element(By.CSS_SELECTOR, "button[aria-label='Set rate of customers']").click()
                return True
            except StaleElementReferenceException:
                return False
        wait.until(attempt)

    set_rate("")
    wait.until(lambda d: d.find_element(By.ID, "message").text == "a rate is a number")
    set_rate("-5")
    wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("a rate is a number of arrivals per time unit"))
    print("dashboard_test: a rate left empty or below 0 is refused with its message, and not set")

    button("Resume").click()
    wait.until(lambda d: d.find_element(By.ID, "state").text == "running" and number("iterations") > paused_at)
    print("dashboard_test: resumed")

    button("Stop").click()
    wait.until(lambda d: d.find_element(By.ID, "ending").is_displayed())
    ending = driver.find_element(By.ID, "ending-text").text
    assert "exit status 130" in ending, ending
    link = driver.find_element(By.ID, "report")
    assert link.is_displayed() and link.get_attribute("href").startswith("blob:"), "no report offered"
    print(f"dashboard_test: stopped: '{ending}', and the page offers the HTML report")
finally:
    driver.quit()

try:
    status = run.wait(timeout=30)
except subprocess.TimeoutExpired:
    run.kill()
    sys.exit("dashboard_test: the run did not end after Stop")
if status != 130:
    sys.exit(f"dashboard_test: the run ended with {status}, not 130 (Ctrl-C)")
print("dashboard_test: OK")
