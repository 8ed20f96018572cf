"""A real Prometheus's own page (Debian's, its classic UI served by the binary) graphs a
query over what it scraped from a run, in headless Chromium: the graph is drawn and no
error shows. The screenshot goes to docs/images/ for docs/observability.md.
Usage: python prometheus_test.py PROMETHEUS_PORT QUERY SCREENSHOT_FOLDER
(scripts/observability runs it while its Prometheus scrapes.)
"""
import os
import sys
import urllib.parse

from browser import chrome
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

port, query, screenshots = sys.argv[1], sys.argv[2], sys.argv[3]
driver = chrome(1200, 800)
wait = WebDriverWait(driver, 60, poll_frequency=0.5)
try:
    parameters = urllib.parse.urlencode({"g0.expr": query, "g0.tab": "0", "g0.range_input": "30s"})
    driver.get(f"http://127.0.0.1:{port}/classic/graph?{parameters}")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".graph svg path"))
    errors = [alert.text for alert in driver.find_elements(By.CSS_SELECTOR, ".alert-danger") if alert.is_displayed() and alert.text]
    if errors:
        sys.exit(f"prometheus_test: the graph of {query!r} shows an error: {errors}")
    os.makedirs(screenshots, exist_ok=True)
    driver.save_screenshot(os.path.join(screenshots, "prometheus.png"))
    print(f"prometheus_test: Prometheus graphs {query!r}; screenshot taken")
finally:
    driver.quit()
