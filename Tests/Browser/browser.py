"""What the browser tests share: a ccai process and the address it prints, and headless
Chromium driven by Selenium with the system's browser and driver (nothing downloaded)."""
import re
import subprocess
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(arguments, pattern, name):
    """Starts `arguments`; returns the process and the first match of `pattern` (a regular
    expression with one group) on its standard error, or exits when it prints none."""
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        found = re.search(pattern, line)
        if found:
            return process, found.group(1)
    sys.exit(f"{name}: {arguments[0]} printed no address")


def chrome(width, height):
    """Headless Chromium, Debian's, with Debian's chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
