"""The distribution's headless Chromium driven by Selenium, for the tests that look at a page in a real
browser (the HTML report, the web tables); None when Selenium, chromium or chromedriver is missing."""
import os
import shutil

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
MISSING = "no headless Chromium here (apt-get install chromium chromium-driver; .ci/run does it as root)"


def chrome(profile, size=(1280, 900), mobile: bool = False, lang: str | None = None):
    """A fresh headless Chromium with its own profile folder, `size` (width, height) CSS pixels; mobile:
    a phone's touch screen (device metrics with touch), for the phone-sized tests; lang: the browser's
    language (`--lang` and the accepted languages), e.g. "ja"."""
    try:
        from selenium import webdriver
    except ImportError:
        return None
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        return None
    os.environ.setdefault("SE_AVOID_STATS", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(arg)
    if lang:
        options.add_argument(f"--lang={lang}")
        options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})     # the console, for tests that read it
    if mobile:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": size[0], "height": size[1],
                                                                                "pixelRatio": 2.0, "touch": True}})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    return driver
