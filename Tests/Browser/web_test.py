#!/usr/bin/env python3
"""The web app in a real browser: Debian's Chromium, driven by selenium through chromedriver.

Usage: python3 Tests/Browser/web_test.py PATH/TO/cardbox [SCREENSHOT_FOLDER]
(with cardbox-server and cardbox-image-worker beside it, as the build puts them)

Starts `cardbox serve` on a free loopback port over a new SQLite database, walks through what a new
user does (first-run setup, a deck, cards, study, the card limit and the upgrade, signing out),
checks each page, and saves screenshots of every page at a phone's size, a desktop's and a
desktop's at 200 % zoom (default folder: .build/web-screenshots), checking at each size that the
page reflows (no scrolling sideways) and that every control has a name a screen reader can say. Exits non-zero on the first failed check.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import struct
import time
import zlib
from datetime import datetime
from urllib.parse import urlparse

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

PHONE = (320, 640)
# Deque's axe-core, as PyPI's axe-core-python ships it (scripts/install-deps.sh installs it).
import axe_core_python  # noqa: E402
AXE = open(os.path.join(os.path.dirname(axe_core_python.__file__), "axe.min.js")).read()
DESKTOP = (1280, 800)


class Server:
    """`cardbox serve` on its own database, for the length of the test."""

    def __init__(self, cardbox: str, work: str):
        self.cardbox = cardbox
        self.database = os.path.join(work, "server.sqlite")
        self.output = open(os.path.join(work, "serve.out"), "w+")
        self.process = subprocess.Popen(
            [cardbox, "serve", "--port", "0", "--database", self.database],
            stdout=self.output, stderr=subprocess.STDOUT)
        self.url, self.setup_path = self._wait_for_address()

    def _wait_for_address(self) -> tuple[str, str]:
        """The address it listens on, and the path of the one-time setup link it prints."""
        for _ in range(300):
            self.output.seek(0)
            printed = self.output.read()
            found = re.search(r"listening on (http://\S+)", printed)
            link = re.search(r"create the first account at http://[^/\s]+(/setup\?token=[0-9a-f]+)", printed)
            if found and link:
                return found.group(1), link.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        self.output.seek(0)
        raise SystemExit("cardbox serve did not start:\n" + self.output.read())

    def restart(self) -> None:
        """Starts it again after `stop`, on the same port and database."""
        port = self.url.rsplit(":", 1)[1]
        self.output = open(self.output.name + ".again", "w+")
        self.process = subprocess.Popen(
            [self.cardbox, "serve", "--port", port, "--database", self.database],
            stdout=self.output, stderr=subprocess.STDOUT)
        for _ in range(300):
            self.output.seek(0)
            if "listening on" in self.output.read():
                return
            time.sleep(0.1)
        raise SystemExit("cardbox serve did not start again")

    def admin(self, *arguments: str, stdin: str = "") -> None:
        subprocess.run([self.cardbox, "admin", "--database", self.database, *arguments], input=stdin, text=True,
                       check=True, capture_output=True)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


class Browser:
    """One Chromium window, headless, with screenshots of each page it is asked to keep."""

    def __init__(self, base: str, screenshots: str):
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_window_size(*DESKTOP)
        self.base = base
        self.screenshots = screenshots
        self.wait = WebDriverWait(self.driver, 10)

    def open(self, path: str) -> None:
        self.driver.get(self.base + path)

    def find(self, selector: str):
        return self.wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))

    def fill(self, fields: dict, within: str = "") -> None:
        """Types each value into the field of its name (the first on the page, or in `within`)."""
        for name, value in fields.items():
            field = self.find(f'{within} [name="{name}"]'.strip())
            field.clear()
            field.send_keys(value)

    def submit(self, selector: str = 'form.stack button[type="submit"]') -> None:
        button = self.find(selector)
        old = self.driver.find_element(By.TAG_NAME, "html")
        button.click()
        self.wait.until(gone(old))

    def submit_in(self, element, selector: str) -> None:
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.find_element(By.CSS_SELECTOR, selector).click()
        self.wait.until(gone(old))

    def text(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "body").text

    def keys(self, keys: str) -> None:
        self.driver.find_element(By.TAG_NAME, "body").send_keys(keys)

    def shoot(self, name: str) -> None:
        """Saves the page at a phone's size, a desktop's and a desktop's at 200 % zoom, whole (as tall
        as its content), checking at each that it reflows (nothing wider than the window, so no
        scrolling sideways), with every folded part (`<details>`) opened for the checks, and once that
        every control it shows has a name a screen reader can say. The sizes are the page's viewport,
        set through Chromium's device metrics: 200 % zoom is half as many CSS pixels across, each
        drawn twice as large."""
        sizes = (("phone", PHONE, 1, True), ("desktop", DESKTOP, 1, False),
                 ("zoom200", (DESKTOP[0] // 2, DESKTOP[1] // 2), 2, False))
        for label, (width, height), scale, mobile in sizes:
            def viewport(tall: int) -> None:
                self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": tall, "deviceScaleFactor": scale, "mobile": mobile})
            viewport(height)
            folded = self.driver.execute_script("""
                const folded = [...document.querySelectorAll("details:not([open])")];
                folded.forEach((details) => { details.open = true; });
                return folded;
            """)
            self.check_reflows(f"{name} ({label})")
            if label == "desktop":
                self.check_names(name)
            if label == "phone":
                self.check_phone(name)
                self.check_axe(f"{name} (phone, dark)", dark=True)
            if label != "zoom200":
                self.check_axe(f"{name} ({label})")
            self.driver.execute_script("arguments[0].forEach((details) => { details.open = false; })", folded)
            viewport(max(height, self.driver.execute_script("return document.documentElement.scrollHeight")))
            self.driver.execute_script("window.scrollTo(0, 0)")
            self.driver.save_screenshot(os.path.join(self.screenshots, f"{name}-{label}.png"))
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def check_reflows(self, page: str) -> None:
        """The page is no wider than the window (a board's columns scroll inside their own box)."""
        wide = self.driver.execute_script(
            "const root = document.documentElement; return [root.scrollWidth, root.clientWidth]")
        if wide[0] > wide[1]:
            culprits = self.driver.execute_script("""
                const width = document.documentElement.clientWidth;
                return [...document.querySelectorAll("body *")]
                    .filter((element) => element.getBoundingClientRect().right > width + 0.5)
                    .filter((element) => ![...element.children].some(
                        (child) => child.getBoundingClientRect().right > width + 0.5))
                    .slice(0, 5).map((element) => element.outerHTML.slice(0, 200));
            """)
            check(False, f"{page}: the page is {wide[0]} px wide in a {wide[1]} px window: {culprits}")

    def check_phone(self, page: str) -> None:
        """On a phone: the app's four parts in one row at the bottom, the current one marked; a
        page's tabs in one row (scrolling sideways); every tap target at least 44 × 44 px."""
        found = self.driver.execute_script("""
            const shown = (element) => element.checkVisibility() && element.getBoundingClientRect().width > 0;
            const nav = [...document.querySelectorAll("nav.main a")].map((a) => a.getBoundingClientRect());
            const tabs = [...document.querySelectorAll("nav.tabs a")].map((a) => a.getBoundingClientRect().top);
            const current = document.querySelector("nav.main a[aria-current=page]");
            const targets = [...document.querySelectorAll(
                "nav.main a, nav.tabs a, button, .button, details.confirm > summary")].filter(shown);
            const small = targets.map((element) => [element, element.getBoundingClientRect()])
                .filter(([_, box]) => box.width < 43.5 || box.height < 43.5)
                .map(([element, box]) => `${element.outerHTML.slice(0, 80)} ${box.width}x${box.height}`);
            return {nav: nav.map((box) => [box.top, box.bottom]), height: window.innerHeight, tabs,
                    current: current && current.getAttribute("href"), small};
        """)
        if found["nav"]:
            tops = {round(top) for top, _ in found["nav"]}
            check(len(tops) == 1 and max(bottom for _, bottom in found["nav"]) <= found["height"] + 0.5
                  and min(tops) > found["height"] - 90,
                  f"{page} (phone): the navigation is one row at the bottom ({found['nav']})")
            part = "/" + urlparse(self.driver.current_url).path.split("/")[1]
            if part in ("/decks", "/lists", "/boards", "/account"):
                check(found["current"] == part, f"{page} (phone): the current part is marked ({found['current']})")
        check(len({round(top) for top in found["tabs"]}) <= 1, f"{page} (phone): the tabs are one row")
        check(not found["small"], f"{page} (phone): tap targets under 44 × 44 px: {found['small'][:5]}")

    def check_axe(self, page: str, dark: bool = False) -> None:
        """axe-core (Deque's engine) finds no serious or critical violation of WCAG 2.1 A and AA, in
        the light scheme or (`dark`) the dark one."""
        # A page already dark (the dark-mode step) stays so.
        dark = dark and not self.driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
        if dark:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
                "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        result = self.driver.execute_async_script(AXE + """
            const done = arguments[arguments.length - 1];
            axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
                .then((found) => done(found.violations.filter((v) => ["serious", "critical"].includes(v.impact))
                    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`)))
                .catch((error) => done(["axe failed: " + error]));
        """)
        if dark:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        check(not result, f"{page}: axe-core finds {result}")

    def check_names(self, page: str) -> None:
        """Every visible form control and button has an accessible name, as Chromium computes it for
        screen readers, and every image a text alternative."""
        # checkVisibility: a closed <details>' content keeps its boxes in Chromium (content-visibility:
        # hidden), but it is not shown, and screen readers do not reach it.
        shown = "(element) => element.type !== 'hidden' && element.checkVisibility()"
        controls = self.driver.execute_script(
            f"return [...document.querySelectorAll('input, select, textarea, button')].filter({shown})")
        unnamed = [control.get_attribute("outerHTML")[:160] for control in controls
                   if not (control.accessible_name or "").strip()]
        unnamed += self.driver.execute_script(
            f"return [...document.querySelectorAll('img:not([alt])')].filter({shown})"
            ".map((image) => image.outerHTML.slice(0, 160))")
        check(not unnamed, f"{page}: controls without a name: {unnamed}")

    def drag(self, source, target, touch: bool = False, hold: float = 0.0) -> None:
        """Drags `source` onto the middle of `target` with real input (DevTools' Input domain, which
        Chromium turns into Pointer Events as it does a person's): the mouse, or a finger held `hold`
        seconds first (a long press), moved in steps; then waits for the page that follows."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", source)
        middle = lambda element: (lambda r: (r["left"] + r["width"] / 2, r["top"] + r["height"] / 2))(self.rect(element))
        (x0, y0), (x1, y1) = middle(source), middle(target)
        steps = [(x0 + (x1 - x0) * i / 12, y0 + (y1 - y0) * i / 12) for i in range(1, 13)]
        cdp = self.driver.execute_cdp_cmd
        if touch:
            cdp("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
            try:
                cdp("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
                time.sleep(hold)
                for x, y in steps:
                    cdp("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
                cdp("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            finally:
                cdp("Emulation.setTouchEmulationEnabled", {"enabled": False})
        else:
            mouse = lambda kind, x, y, **extra: cdp("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra})
            mouse("mouseMoved", x0, y0)
            mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
            for x, y in steps:
                mouse("mouseMoved", x, y, button="left", buttons=1)
            mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)
        self.wait.until(gone(old))

    def at_width(self, width: int) -> None:
        """A phone's viewport, `width` CSS pixels across, until `full_size`."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 800, "deviceScaleFactor": 1, "mobile": True})

    def full_size(self) -> None:
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def rect(self, element) -> dict:
        return self.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element)

    def focused_id(self) -> str:
        return self.driver.switch_to.active_element.get_attribute("id") or ""

    def choose(self, fields: dict) -> None:
        for name, value in fields.items():
            Select(self.find(f'select[name="{name}"]')).select_by_value(value)

    def quit(self) -> None:
        self.driver.quit()


def gone(element):
    """A wait condition: `element` left the document (the page was replaced). Chromium reports a node
    of a replaced document either as stale or as "not in the document"; both mean gone."""
    def condition(_driver) -> bool:
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True
    return condition


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


def first_run(browser: Browser, setup_path: str) -> None:
    browser.open("/")
    check("/setup" in browser.driver.current_url, "a new server's first page offers to create the first account")
    check("setup link" in browser.text(), "without the setup link the page says where to find it")
    browser.open(setup_path)
    browser.shoot("setup")
    browser.fill({"user": "admin", "password": "correct horse"})
    browser.submit()
    check(browser.driver.current_url.endswith("/decks"), "the first account is made and signed in")
    check("No decks yet" in browser.text(), "a new account has no decks")


def deck_and_cards(browser: Browser) -> str:
    browser.fill({"name": "Spanish"})
    browser.choose({"front": "es", "back": "en"})
    browser.submit()
    deck = browser.driver.current_url
    check(browser.find("h1").text == "Spanish", "a new deck opens on its page")
    check("Spanish → English" in browser.text(), "its languages show by name, as the New deck menus named them")
    for front, back, tags in (("hola", "hello", "greeting"), ("<script>alert(1)</script>", "a script", "")):
        browser.fill({"front": front, "back": back, "tags": tags})
        browser.submit()
        check(browser.focused_id() == "front", "after adding a card the cursor is back in Front")
    browser.at_width(320)
    header = browser.rect(browser.find("header"))
    check(header["height"] < 60, f"on a 320 px phone the top bar is one line ({header['height']} px)")
    check(browser.rect(browser.find("#cards"))["top"] < browser.rect(browser.find("#add-card"))["top"],
          "on a phone the deck's cards come before the form that adds one")
    browser.full_size()
    check(browser.rect(browser.find("#cards"))["top"] > browser.rect(browser.find("#add-card"))["top"],
          "on a desktop the form that adds a card comes first")
    deck_settings(browser)
    cards = browser.find("#cards").text
    check("hola" in cards and "hello" in cards and "greeting" in cards, "an added card shows with its tag")
    check("<script>alert(1)</script>" in cards, "a card titled <script> shows as text")
    check(len(browser.driver.find_elements(By.CSS_SELECTOR, "#cards script")) == 0, "and is not markup")
    browser.shoot("deck")
    return deck


def deck_settings(browser: Browser) -> None:
    """In a desktop window each study setting's label sits above its own field."""
    browser.find("#deck-settings summary").click()
    pairs = browser.driver.execute_script("""
        return [...document.querySelectorAll("#deck-settings fieldset label[for]")].map((label) => {
            const field = document.getElementById(label.htmlFor);
            return [label.htmlFor, label.getBoundingClientRect().toJSON(), field.getBoundingClientRect().toJSON()];
        });
    """)
    misplaced = [name for name, label, field in pairs
                 if not (label["bottom"] <= field["top"] + 1 and abs(label["left"] - field["left"]) < 2)]
    check(len(pairs) >= 6 and not misplaced, f"deck settings: each label is above its field ({misplaced})")
    browser.find("#deck-settings summary").click()


def live(browser: Browser, deck: str) -> None:
    """A second browser session on the deck's page sees a card another session adds, without reloading."""
    other = Browser(browser.base, browser.screenshots)
    try:
        other.open("/signin")
        other.fill({"user": "admin", "password": "correct horse"})
        other.submit()
        path = deck.replace(browser.base, "")
        other.open(path)
        check("vivir" not in other.find("#cards").text, "the second session shows the deck as it is")
        browser.open(path)
        browser.fill({"front": "vivir", "back": "to live", "tags": ""})
        browser.submit()
        WebDriverWait(other.driver, 15).until(lambda driver: "vivir" in driver.find_element(By.TAG_NAME, "body").text)
        check(True, "the second session shows the card the first one added, by itself")
        other.shoot("deck-live")
    finally:
        other.quit()


def study(browser: Browser, deck: str) -> None:
    browser.open(deck.replace(browser.base, "") + "/study")
    front = browser.find("#front").text
    check(front in ("hola", "<script>alert(1)</script>", "vivir"), "study shows a card's front")
    check(not browser.find("#back").is_displayed(), "the answer is hidden until asked for")
    browser.keys(" ")
    browser.wait.until(lambda _: browser.find("#back").is_displayed())
    labels = [b.text for b in browser.driver.find_elements(By.CSS_SELECTOR, ".ratings button")]
    check(len(labels) == 4 and all(re.search(r"\d+(s|m|h|d|mo|y)$", label) for label in labels),
          "space shows the answer and four buttons, each with its next interval")
    check(not browser.find("#answer summary").is_displayed(), "Show answer goes once the answer is open")
    buttons = browser.driver.find_elements(By.CSS_SELECTOR, ".ratings button")
    colours = {b.value_of_css_property("background-color") for b in buttons}
    check(len(colours) == 4, f"Again, Hard, Good and Easy each have a colour of their own ({colours})")
    for width in (390, 320):
        browser.at_width(width)
        tops = {round(browser.rect(b)["top"]) for b in buttons}
        check(len(tops) == (1 if width == 390 else 2), f"at {width} px the buttons are in {len(tops)} row(s), never 3 + 1")
    browser.full_size()
    browser.shoot("study")
    old = browser.driver.find_element(By.TAG_NAME, "html")
    browser.keys("3")
    browser.wait.until(gone(old))
    check("answered" in browser.driver.current_url, "key 3 answers Good")
    check(browser.find("#front").text != front or "Nothing left" in browser.text(), "the next card comes up")
    old = browser.driver.find_element(By.TAG_NAME, "html")
    browser.keys("u")
    browser.wait.until(gone(old))
    check(browser.find("#front").text == front, "key u undoes the answer: the same card is back")


def stats(browser: Browser, deck: str) -> None:
    """After a review the deck's stats draw it: today's bar in the reviews chart, and a forecast."""
    browser.open(deck.replace(browser.base, "") + "/study")
    browser.keys(" ")
    browser.wait.until(lambda _: browser.find("#back").is_displayed())
    old = browser.driver.find_element(By.TAG_NAME, "html")
    browser.keys("3")
    browser.wait.until(gone(old))
    browser.open(deck.replace(browser.base, ""))
    browser.find("#stats-link").click()
    bars = browser.driver.find_elements(By.CSS_SELECTOR, "#reviews-chart rect")
    check(len(bars) == 30 and float(bars[-1].get_attribute("height")) > 0,
          "the stats page draws 30 days of reviews as SVG, today's bar not empty")
    check(len(browser.driver.find_elements(By.CSS_SELECTOR, "#forecast-chart rect")) == 30
          and "remembered" in browser.find("#retention").text, "and the retention and the forecast")
    states = browser.driver.find_elements(By.CSS_SELECTOR, "#card-states li")
    check(all(li.value_of_css_property("list-style-type") == "none" for li in states)
          and re.match(r"\d+ new$", states[0].text), "the cards by state read '3 new', without list bullets")
    browser.at_width(320)
    label = browser.driver.find_element(By.CSS_SELECTOR, "#reviews-chart text")
    check(browser.rect(label)["height"] >= 9, "on a phone the charts' labels are large enough to read")
    browser.full_size()
    browser.shoot("stats")


def dark_mode(browser: Browser, deck: str) -> None:
    """With the system in dark mode the pages are dark too: the page, the card and the fields."""
    browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        browser.open(deck.replace(browser.base, "") + "/study")
        def brightness(element) -> float:
            colour = element.value_of_css_property("background-color")
            red, green, blue = [int(part) for part in re.findall(r"\d+", colour)[:3]]
            return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255
        check(brightness(browser.find("body")) < 0.15 and brightness(browser.find("#study")) < 0.2,
              "in dark mode the page and the card are dark")
        browser.shoot("study-dark")
    finally:
        browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def lists(browser: Browser) -> None:
    browser.open("/lists")
    browser.fill({"name": "Groceries"})
    browser.submit()
    check(browser.find("h1").text == "Groceries", "a new list opens on its page")
    check(browser.find("#no-items").text == "No items yet: add the first one below.", "an empty list says so plainly")
    for title, quantity in (("Milk", "2"), ("Bread", ""), ("Eggs", "12")):
        browser.fill({"title": title, "quantity": quantity}, within="#add-item")
        browser.submit('#add-item button[type="submit"]')
        check(browser.focused_id() == "title", "after adding an item the cursor is back in the Add item line")
    titles = lambda: [e.text for e in browser.driver.find_elements(By.CSS_SELECTOR, "#items .title")]
    rows = lambda: browser.driver.find_elements(By.CSS_SELECTOR, "#items > li")
    row = lambda title: next(r for r in rows() if r.find_element(By.CSS_SELECTOR, ".title").text == title)
    check(titles() == ["Milk", "Bread", "Eggs"], "items are added in order")
    check(browser.rect(browser.find("#add-item"))["top"] > browser.rect(browser.find("#items"))["bottom"],
          "the Add item line comes after the items")
    # A tap on an item's title opens its editor in place; the description is set there.
    row("Milk").find_element(By.CSS_SELECTOR, "summary").click()
    editor = row("Milk").find_element(By.CSS_SELECTOR, "details.edit > form")
    editor.find_element(By.NAME, "description").send_keys("Oat, see https://example.org/oat")
    browser.submit_in(editor, 'button[type="submit"]')
    link = browser.find("#items .description a")
    check(link.get_attribute("href") == "https://example.org/oat", "a web address in a description is a link")
    # One line per item: its box, its title and its handle side by side, the description under them.
    lines = browser.driver.execute_script("""
        return [...document.querySelectorAll("#items > li")].map((row) => {
            const middle = (e) => { const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); };
            return [middle(row.querySelector("button.check")), middle(row.querySelector("summary")),
                    middle(row.querySelector(".handle"))];
        });
    """)
    check(all(max(line) - min(line) <= 2 for line in lines), f"box, title and handle share one line ({lines})")
    browser.at_width(390)
    try:
        browser.drag(row("Eggs").find_element(By.CSS_SELECTOR, ".handle"), row("Milk"), touch=True)
        check(titles() == ["Eggs", "Milk", "Bread"], "a finger drags Eggs by its handle onto Milk: it goes first, and stays")
    finally:
        browser.full_size()
    browser.drag(row("Bread").find_element(By.CSS_SELECTOR, ".handle"), row("Milk"))
    check(titles() == ["Eggs", "Bread", "Milk"], "the mouse drags Bread by its handle onto Milk: it takes Milk's place")
    row("Bread").find_element(By.CSS_SELECTOR, "summary").click()
    browser.submit_in(row("Bread"), ".item-moves button")
    check(titles() == ["Bread", "Eggs", "Milk"], "the keyboard's way, an item's Move up in its editor, moves it up")
    old = browser.driver.find_element(By.TAG_NAME, "html")
    browser.find('button[aria-label="Cross out Eggs"]').click()
    browser.wait.until(gone(old))
    check("Eggs" not in titles(), "a crossed-out item is hidden while showCrossedOutItems is off")
    browser.submit("#toggle-crossed")
    crossed = browser.driver.find_elements(By.CSS_SELECTOR, "#items li.crossed .title")
    check([e.text for e in crossed] == ["Eggs"], "shown again, it is struck through")
    check(titles() == ["Bread", "Milk", "Eggs"], "and sinks below the items not crossed out, as in Reminders")
    item_image(browser)
    browser.shoot("list")
    browser.open("/lists")
    browser.shoot("lists")


def png(width: int, height: int) -> bytes:
    """A real PNG: a vertical gradient, written with zlib."""
    rows = b"".join(b"\x00" + bytes((y * 255 // height, 120, 200)) * width for y in range(height))
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def item_image(browser: Browser) -> None:
    """Milk gets a photo from its Edit form: the list shows only the count; the details show the thumbnail."""
    path = os.path.join(browser.screenshots, "..", "milk.png")
    with open(path, "wb") as file:
        file.write(png(400, 300))
    milk = [row for row in browser.driver.find_elements(By.CSS_SELECTOR, "#items > li")
            if row.find_element(By.CSS_SELECTOR, ".title").text == "Milk"][0]
    milk.find_element(By.CSS_SELECTOR, "details.edit summary").click()
    milk.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(os.path.abspath(path))
    browser.submit_in(milk, 'form[enctype="multipart/form-data"] button')
    milk = [row for row in browser.driver.find_elements(By.CSS_SELECTOR, "#items > li")
            if row.find_element(By.CSS_SELECTOR, ".title").text == "Milk"][0]
    check("1 image" in milk.find_element(By.CSS_SELECTOR, ".image-count").text, "an uploaded item image is counted in the list (seed 002: only the count)")
    milk.find_element(By.CSS_SELECTOR, "details.edit summary").click()
    thumbnail = milk.find_element(By.CSS_SELECTOR, "img.thumbnail")
    WebDriverWait(browser.driver, 10).until(lambda _: thumbnail.get_attribute("naturalWidth") == "256")
    check(True, "its details show the 256-pixel thumbnail, linked to the full image")
    os.remove(path)


def card_editor(browser: Browser, deck: str) -> None:
    """The card "hola" opened from its deck: notes, a tag and a picture (previewed before it is sent)."""
    browser.open(deck.replace(browser.base, ""))
    browser.driver.find_element(By.LINK_TEXT, "hola").click()
    check(browser.find("h1").text == "Edit card", "a card's front opens its editor")
    path = os.path.join(browser.screenshots, "..", "hola.png")
    with open(path, "wb") as file:
        file.write(png(300, 200))
    browser.find("#image").send_keys(os.path.abspath(path))
    preview = browser.find("#image-preview")
    WebDriverWait(browser.driver, 10).until(lambda _: preview.is_displayed() and preview.get_attribute("naturalWidth") == "300")
    check(True, "a chosen picture shows as a preview before it is sent")
    browser.fill({"notes": "said when meeting someone", "tags": "greeting, informal"})
    browser.shoot("card-editor")
    browser.submit("#card-editor button[type=submit]")
    check(browser.driver.current_url == deck, "saving goes back to the deck")
    check("informal" in browser.find("#cards").text, "the new tag shows on the deck's card")
    browser.driver.find_element(By.LINK_TEXT, "hola").click()
    thumbnail = browser.find("#current-image")
    WebDriverWait(browser.driver, 10).until(lambda _: thumbnail.get_attribute("naturalWidth") == "256")
    check(browser.find("#notes").get_attribute("value") == "said when meeting someone",
          "the editor shows the saved notes and the picture's thumbnail")
    os.remove(path)


def import_export(browser: Browser) -> None:
    """A TSV file of words becomes a new deck; the report says so, and the deck is offered for export."""
    path = os.path.join(browser.screenshots, "..", "words.txt")
    with open(path, "w") as file:
        file.write("gato\tcat\nperro\tdog\n")
    browser.open("/exchange")
    word = os.path.join(browser.screenshots, "..", "word.txt")
    with open(word, "w") as file:
        file.write("hello\n")
    browser.find("#file").send_keys(os.path.abspath(word))
    browser.submit("#import button[type=submit]")
    refusal = browser.find(".error").text
    check("Format menu" in refusal and "--format" not in refusal,
          f"a file of unknown format is refused in the page's words: {refusal!r}")
    os.remove(word)
    browser.find("#file").send_keys(os.path.abspath(path))
    browser.fill({"deck": "Animals"})
    browser.submit("#import button[type=submit]")
    check("give the front language for new decks" in browser.find(".error").text,
          "a new deck without a front language is refused, saying what to give")
    browser.find("#file").send_keys(os.path.abspath(path))
    Select(browser.find("#import-front")).select_by_value("es")
    browser.submit("#import button[type=submit]")
    check("created: 2 cards, 1 deck" in browser.find("#report").text, "an imported file's report shows on the page")
    check("Animals" in browser.find("#exports").text, "the new deck can be exported")
    browser.shoot("import")
    os.remove(path)


def boards(browser: Browser) -> None:
    browser.open("/boards")
    browser.fill({"title": "Trip"})
    browser.submit()
    check(browser.find("h1").text == "Trip", "a new board opens on its page")
    browser.open("/boards")
    browser.shoot("boards")
    browser.driver.find_element(By.LINK_TEXT, "Trip").click()
    check(browser.find("h1").text == "Trip", "the boards page links to the board")
    for title in ("To do", "Doing", "Done"):
        browser.find('#add-column input[name="title"]').send_keys(title)
        browser.submit('#add-column button[type="submit"]')
    for title in ("Book flights", "Pack"):
        browser.find('.column:first-child .add-card input[name="title"]').send_keys(title)
        browser.submit(".column:first-child .add-card button")
        check(browser.driver.switch_to.active_element.get_attribute("aria-label") == "New card in To do",
              "after adding a board card the cursor is back in its column's New card")

    def column_of(title: str) -> str:
        for column in browser.driver.find_elements(By.CSS_SELECTOR, ".column"):
            if title in [e.text for e in column.find_elements(By.CSS_SELECTOR, "li .title")]:
                return column.find_element(By.TAG_NAME, "h2").text.split(" ")[0:2][0]
        return ""

    card = browser.driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Book flights']]")
    doing = browser.driver.find_elements(By.CSS_SELECTOR, ".column ul.cards")[1]
    # Pressed on its title, as a thumb would (its buttons do their own thing).
    browser.drag(card.find_element(By.CSS_SELECTOR, ".title"), doing, touch=True, hold=0.7)
    check(column_of("Book flights") == "Doing", "a card held down with a finger and dragged onto another column moves there")
    browser.open(browser.driver.current_url.replace(browser.base, ""))
    check(column_of("Book flights") == "Doing", "and is still there after a reload")
    old = browser.driver.find_element(By.TAG_NAME, "html")
    browser.find('button[aria-label="Move Pack to the next column"]').click()
    browser.wait.until(gone(old))
    check(column_of("Pack") == "Doing", "the keyboard way (an arrow button) moves a card to the next column")
    # The "Move to…" menu in a card's details: any column, for a screen reader or a thumb.
    flights = browser.driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Book flights']]")
    flights.find_element(By.TAG_NAME, "summary").click()
    Select(flights.find_element(By.CSS_SELECTOR, ".move-to select")).select_by_visible_text("Done")
    browser.submit_in(flights, ".move-to button")
    check(column_of("Book flights") == "Done", "a card's Move to menu moves it to the column chosen")
    flights = browser.driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Book flights']]")
    flights.find_element(By.TAG_NAME, "summary").click()
    Select(flights.find_element(By.CSS_SELECTOR, ".move-to select")).select_by_visible_text("Doing")
    browser.submit_in(flights, ".move-to button")
    check(column_of("Book flights") == "Doing", "and back, to a column before it")
    # On a phone, one whole column at a time, swiped; the strip above names each and goes to it.
    browser.at_width(390)
    try:
        columns = browser.driver.find_elements(By.CSS_SELECTOR, ".column")
        box = browser.rect(browser.find(".columns"))  # what scrolls past its edges is not shown
        width = browser.driver.execute_script("return document.documentElement.clientWidth")
        first, second = browser.rect(columns[0]), browser.rect(columns[1])
        check(box["right"] <= width and first["left"] >= box["left"] and first["right"] <= box["right"]
              and second["left"] >= box["right"],
              f"a phone shows one whole column ({first['left']:.0f}-{first['right']:.0f} of "
              f"{box['left']:.0f}-{box['right']:.0f}, the next at {second['left']:.0f})")
        strip = browser.driver.find_elements(By.CSS_SELECTOR, ".column-strip a")
        names = [" ".join(link.text.split()) for link in strip]
        check(names == ["To do 0", "Doing 2", "Done 0"] and strip[1].is_displayed(), f"the strip names the columns ({names})")
        strip[1].click()
        browser.wait.until(lambda _: abs(browser.rect(columns[1])["left"] - box["left"]) < 2)
        check(browser.rect(columns[1])["right"] <= box["right"] + 1, "a tap on a column's name shows that column whole")
    finally:
        browser.full_size()
    browser.shoot("board")
    pack = browser.driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Pack']]")
    pack.find_element(By.TAG_NAME, "summary").click()
    browser.submit_in(pack, "form[action$='/archive'] button")
    check(column_of("Pack") == "", "an archived card leaves the board")
    browser.open(browser.driver.current_url.replace(browser.base, "") + "?archived")
    check(column_of("Pack") == "Doing", "and shows again, in its place, among the archived ones")


def card_limit(browser: Browser, server: Server, deck: str) -> None:
    browser.open(deck.replace(browser.base, ""))
    for index in range(22):  # 3 cards so far: up to the free plan's 25
        browser.fill({"front": f"word {index}", "back": f"meaning {index}", "tags": ""})
        browser.submit()
    browser.fill({"front": "perro", "back": "dog", "tags": ""})
    browser.submit()
    alert = browser.find('[role="alert"]').text
    check("25" in alert and "limit" in alert.lower(), f"the 26th card shows seed 001's message: {alert!r}")
    check(browser.find('[role="alert"] #upgrade').get_attribute("href").endswith("/account#plan"),
          "and, beside it, the way to lift the limit")
    check(browser.find("#front").get_attribute("value") == "perro", "and keeps what was typed")
    browser.shoot("card-limit")
    browser.open("/decks")
    check("25 of 25 cards used" in browser.text(), "the decks page shows the limit reached")
    browser.shoot("decks")
    # The first account administers the server: it lifts its own limit on the Users page.
    browser.open("/account")
    check("You administer this server" in browser.text(), "the account page sends the administrator to Users")
    browser.open("/users")
    browser.shoot("users")
    mine = next(row for row in browser.driver.find_elements(By.CSS_SELECTOR, "#users > li")
                if row.find_element(By.TAG_NAME, "strong").text == "admin")
    Select(mine.find_element(By.CSS_SELECTOR, 'select[name="plan"]')).select_by_value("premium")
    browser.submit_in(mine, 'button[type="submit"]')
    check("Plan set" in browser.find("#users-notice").text, "the Users page sets a plan")
    browser.open(deck.replace(browser.base, ""))
    browser.fill({"front": "perro", "back": "dog", "tags": ""})
    browser.submit()
    check("perro" in browser.find("#cards").text, "after the upgrade the card is added")
    browser.open("/decks")
    check("cards used" not in browser.text(), "a premium account shows no limit")


def cloze(browser: Browser) -> None:
    """Make a deletion (the button, then Ctrl+Shift+C) marks the selected text; the cloze cards it
    makes are studied with their deletion hidden, then shown."""
    browser.open("/decks")
    browser.fill({"name": "Frases"})
    browser.choose({"front": "es", "back": "en"})
    browser.submit()
    browser.fill({"front": "El gato duerme", "back": "The cat sleeps", "tags": ""})
    field = browser.find("#front")
    browser.driver.execute_script("arguments[0].setSelectionRange(3, 7)", field)
    browser.find('[data-cloze-for="front"]').click()
    check(field.get_attribute("value") == "El {{c1::gato}} duerme", "Make a deletion wraps the selected word as c1")
    value = field.get_attribute("value")
    start = value.index("duerme")
    browser.driver.execute_script("arguments[0].setSelectionRange(arguments[1], arguments[2])", field, start, start + 6)
    field.send_keys(Keys.CONTROL + Keys.SHIFT + "c")
    check(field.get_attribute("value") == "El {{c1::gato}} {{c2::duerme}}", "and Ctrl+Shift+C the next as c2")
    browser.submit()
    cards = browser.find("#cards").text
    check("El [...] duerme" in cards and "El gato [...]" in cards, "the text makes one card per deletion")
    deck = browser.driver.current_url.replace(browser.base, "").split("?")[0]
    browser.open(deck + "/study")
    check(browser.find("#front").text == "El [...] duerme", "study hides the card's deletion")
    browser.keys(" ")
    browser.wait.until(lambda _: browser.find("#cloze-answer").is_displayed())
    check(browser.find("#cloze-answer").text == "El gato duerme" and not browser.find("#front").is_displayed(),
          "space shows the text with the deletion in place of the question")
    browser.shoot("study-cloze")
    confirm_delete(browser, deck)


def confirm_delete(browser: Browser, deck: str) -> None:
    """Delete asks once more, in the page: the first click only opens the button that deletes."""
    browser.open(deck)
    count = lambda: len(browser.driver.find_elements(By.CSS_SELECTOR, "#cards > li"))
    before = count()
    row = browser.find("#cards > li")
    row.find_element(By.CSS_SELECTOR, "details.confirm summary").click()
    check(count() == before and row.find_element(By.CSS_SELECTOR, "details.confirm button").is_displayed(),
          "a card's Delete deletes nothing by itself: it shows 'Yes, delete'")
    browser.submit_in(row, "details.confirm button")
    check(count() == before - 1, "and 'Yes, delete' deletes the card")


def suggestions(browser: Browser, server: Server, work: str, deck: str) -> None:
    """A laptop turns the deck's automatic suggestions on; the server fills the queue with pictures,
    and the deck's page offers them: accept one (it becomes a card), reject another. The page is live
    and reloads itself as the server adds each picture, so elements are found afresh each time."""
    store = ["--store", os.path.join(work, "laptop.sqlite")]
    def laptop(*arguments: str, stdin: str = "") -> None:
        subprocess.run([server.cardbox, *store, *arguments], input=stdin, text=True, check=True, capture_output=True)
    laptop("login", server.url, "--user", "admin", "--password-stdin", stdin="correct horse\n")
    laptop("sync")
    laptop("deck", "edit", "Spanish", "--queued-suggestions", "3")
    laptop("sync")
    browser.open(deck.replace(browser.base, "") + "?tab=suggestions")
    # A node replaced by a reload: stale, or (Chromium) "does not belong to the document".
    replaced = (StaleElementReferenceException, WebDriverException)
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=replaced)
    items = "ul.suggestions li"
    def fronts(driver) -> list:
        return [item.find_element(By.TAG_NAME, "strong").text for item in driver.find_elements(By.CSS_SELECTOR, items)]
    def settled(driver) -> bool:  # every picture made: nothing waits, and every thumbnail has loaded
        waiting = driver.find_element(By.CSS_SELECTOR, "#tab-waiting span").text
        return len(fronts(driver)) >= 2 and waiting == "0" and driver.execute_script(
            "return Array.from(document.querySelectorAll('img.thumbnail'))"
            ".every(i => i.complete && i.naturalWidth > 0)")
    wait.until(settled)
    check(True, f"the server's background suggestions show on the deck's page, with their pictures")
    item = browser.driver.find_elements(By.CSS_SELECTOR, items)[0]
    gap = browser.rect(item.find_element(By.TAG_NAME, "strong"))["top"] - browser.rect(
        item.find_element(By.CSS_SELECTOR, "img.thumbnail"))["top"]
    check(gap < 24, f"a suggestion's text starts beside the top of its picture, no empty band above it ({gap} px)")
    browser.shoot("deck-suggestions")
    def act(action: str) -> str:
        for _ in range(10):
            try:
                item = browser.driver.find_elements(By.CSS_SELECTOR, items)[0]
                front = item.find_element(By.TAG_NAME, "strong").text
                item.find_element(By.CSS_SELECTOR, f'form[action$="/{action}"] button').click()
                return front
            except (*replaced, IndexError):
                time.sleep(0.3)
        raise AssertionError(f"no suggestion to {action}")
    accepted = act("accept")
    wait.until(lambda driver: accepted not in fronts(driver) and len(fronts(driver)) >= 1)
    rejected = act("reject")
    wait.until(lambda driver: rejected not in fronts(driver))
    check(True, f"a rejected suggestion ({rejected}) leaves the page")
    # The server fills the queue again (3): once it has, the page stops reloading for the next steps.
    wait.until(lambda driver: len(fronts(driver)) == 3 and settled(driver))
    browser.open(deck.replace(browser.base, ""))
    check(accepted in browser.find("#cards").text, f"the accepted suggestion ({accepted}) is a card of the deck")
    browser.open(deck.replace(browser.base, "") + "?tab=rejected")
    check(rejected in browser.find("#rejected").text, "and the rejected one is on the deck's rejected list")
    browser.shoot("deck-rejected")


# The records the page keeps, read as the page reads them: `restoreKept(then)` gives `then` a replica
# of the module's, restored from the snapshot, the journal and what waits in IndexedDB, and the kept
# state (both null before the page kept anything). `keptRows` lists every visible record (one JSON
# line each, fields as [value, clock]).
RESTORE_KEPT = """
var done = arguments[arguments.length - 1];
function restoreKept(then) {
  var open = indexedDB.open("cardbox-replica-" + localStorage.getItem("cardbox.account"));
  open.onsuccess = function () {
    var db = open.result;
    if (!db.objectStoreNames.contains("journal")) { db.close(); then(null, null); return; }
    var tx = db.transaction(["state", "snapshot", "journal"], "readonly");
    var state = tx.objectStore("state").get("replica");
    var snapshot = tx.objectStore("snapshot").get("replica");
    var journal = tx.objectStore("journal").getAll();
    tx.oncomplete = function () {
      db.close();
      var setup = self.cardboxReplicaSetup;
      var kept = state.result || null;
      fetch(setup.module).then(function (r) { return r.arrayBuffer(); }).then(CardboxReplica.load).then(function (replica) {
        replica.configure(JSON.stringify(setup.schema), kept ? kept.replicaId : "test");
        if (snapshot.result) replica.restore(snapshot.result);
        journal.result.forEach(function (entry) { replica.restore(entry); });
        if (kept && kept.pending) replica.resumePending(kept.pending);
        then(replica, kept);
      });
    };
  };
}
function keptRows(replica) { return replica ? replica.dump().split("\\n").filter(Boolean).map(JSON.parse) : []; }
"""

KEPT_CARDS = RESTORE_KEPT + """
restoreKept(function (replica) {
  done(keptRows(replica).filter(function (row) {
    return row.entity === "card" && row.fields.deckId[0] === arguments_deck && row.fields.schedule[0].reps > 0;
  }).map(function (row) {
    var schedule = row.fields.schedule[0];
    return { id: row.id, reps: schedule.reps, due: schedule.dueAt / 1000, lastReview: schedule.lastReviewAt / 1000 };
  }));
});
"""


def offline_study(browser: Browser, server: Server, work: str) -> None:
    """A study page keeps the deck in the browser's replica; with the network cut (the server
    stopped) a reload comes from the service worker, and the deck is studied from the replica by the
    rules every device uses, in WebAssembly: each button's interval, a card answered Again coming back
    after its step, undo, the changes counted as they wait. Once the network is back the answers
    reach the server as the replica's change rows, at the times they were given, with the schedules
    the page computed, and a laptop that syncs has the same."""
    browser.open("/decks")
    browser.fill({"name": "Offline"})
    browser.choose({"front": "es", "back": "en"})
    browser.submit()
    deck = urlparse(browser.driver.current_url).path
    for front in ("sol", "luna", "mar"):
        browser.fill({"front": front, "back": "x"})
        browser.submit()
    browser.driver.find_element(By.LINK_TEXT, "sol").click()
    path = os.path.join(work, "sol.png")
    with open(path, "wb") as file:
        file.write(png(120, 80))
    browser.find("#image").send_keys(path)
    browser.submit("#card-editor button[type=submit]")
    browser.open(deck + "/study")
    # The offline page draws itself again after each answer: a node found a moment ago may be gone.
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(StaleElementReferenceException,))
    def ready() -> str:
        wait.until(lambda d: d.execute_script("return document.body.dataset.offlineReady") in ("true", "failed"))
        return browser.driver.execute_script("return document.body.dataset.offlineReady")
    check(ready() == "true", "the study page keeps the deck and its pictures for offline study")
    # Online, the study page shows the card's picture as the offline page does, centred on the card.
    online_picture = browser.find("#picture")
    wait.until(lambda _: online_picture.get_attribute("naturalWidth") == "120")
    shown, card = browser.rect(online_picture), browser.rect(browser.find(".study"))
    middle = lambda box: (box["left"] + box["right"]) / 2
    check(browser.find("#front").text == "sol" and abs(middle(shown) - middle(card)) < 2,
          "online, the study page shows the card's picture, centred")
    # The deck's page as the server draws it, kept to compare with the same page drawn offline.
    browser.open(deck)
    ready()
    deck_online = page_body(browser)
    browser.open(deck + "/study")
    wait.until(lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"))
    errors = browser.driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}).get("installabilityErrors", [])
    check(errors == [], f"Chromium finds the app installable (manifest, icon, service worker): {errors}")
    # No network: the page's requests fail (DevTools' offline mode), and so do the service worker's
    # own, which that mode does not reach in headless Chromium: the server is stopped meanwhile.
    browser.driver.execute_cdp_cmd("Network.enable", {})
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, **conditions})
    server.stop()
    browser.driver.refresh()
    wait.until(lambda d: d.execute_script("return document.body.dataset.pageDrawn"))
    check(browser.find("#offline-note").text == "Offline: nothing waits to be sent",
          f"with no network the study page still opens, and says so ({browser.find('#offline-note').text!r})")
    browser.open(deck)
    wait.until(lambda d: d.execute_script("return document.body.dataset.pageDrawn"))
    deck_offline = page_body(browser)
    check(deck_online.startswith(deck_offline) and "Add a card" in deck_offline,
          "offline, the deck's page is the server's (its settings, which need the network, aside)")
    browser.open(deck + "/study")
    wait.until(lambda d: d.execute_script("return document.body.dataset.pageDrawn"))
    fronts = []
    def drawn() -> int:
        return int(browser.driver.execute_script("return document.body.dataset.pageDrawn || '0'"))
    def act(keys: str) -> None:
        before = drawn()
        browser.keys(keys)
        wait.until(lambda _: drawn() > before)
    def answer(rating: str) -> None:
        fronts.append(browser.find("#front").text)
        browser.keys(" ")
        wait.until(lambda d: d.find_element(By.ID, "back").is_displayed())
        labels = [b.text for b in browser.driver.find_elements(By.CSS_SELECTOR, ".ratings button")]
        check(len(labels) == 4 and all(re.search(r"\d+(s|m|h|d|mo|y)$", label) for label in labels),
              f"offline, each button shows its next interval ({labels})")
        act(rating)
    picture = browser.find("#picture")
    wait.until(lambda _: picture.get_attribute("naturalWidth") == "120")
    check(browser.find("#front").text == "sol", "offline, a card's picture shows from the thumbnail kept")
    answer("1")
    answer("3")
    answer("3")
    act("u")
    check(browser.find("#front").text == fronts.pop(), "u takes back the last answer offline")
    answer("3")
    answer("3")
    check(fronts[3] == fronts[0], f"the card answered Again comes back after its step ({fronts})")
    note = browser.find("#offline-note").text
    check(re.fullmatch(r"Offline: \d+ changes wait", note) is not None, f"the page says how many changes wait ({note!r})")
    browser.shoot("study-offline")
    # Still offline, the deck's page (the server's, drawn from the replica): a card added with a
    # tag, a cloze text's two cards, an edit in the card's own editor.
    browser.open(deck)
    def cards_listed() -> list:
        return browser.driver.execute_script(
            "return Array.from(document.querySelectorAll('#cards > li strong a')).map(e => e.textContent)")
    wait.until(lambda _: len(cards_listed()) == 3)
    add_form = "form[action$='/cards']"
    def add_card(front: str, back: str, tags: str = "") -> None:
        before = len(cards_listed())
        browser.find(f"{add_form} input[name=front]").send_keys(front)
        browser.find(f"{add_form} input[name=back]").send_keys(back)
        browser.find(f"{add_form} input[name=tags]").send_keys(tags)
        browser.find(f"{add_form} button[type=submit]").click()
        wait.until(lambda _: len(cards_listed()) > before)
    add_card("estrella", "star", "astro, Sky")
    add_card("{{c1::sol}} y {{c2::luna}}", "sky")
    # In the order they were made; a cloze text's cards share their time and list by deletion (c1,
    # which hides "sol", first).
    check(cards_listed()[-3:] == ["estrella", "[...] y luna", "sol y [...]"],
          f"offline, a card is added, and a cloze text makes a card per deletion ({cards_listed()})")
    check("astro" in browser.find("#cards").text and "Sky" in browser.find("#cards").text,
          "the tags typed show on the new card")
    check(browser.find("#front").get_attribute("value") == "" and
          browser.driver.switch_to.active_element.get_attribute("id") == "front",
          "after adding, the form is empty and Front has the cursor, as online")
    browser.find("#cards a[aria-label='Edit sol']").click()
    back = browser.find("#card-editor textarea[name=back]")
    back.clear()
    back.send_keys("the sun")
    browser.find("#card-editor button[type=submit]").click()
    wait.until(lambda d: "the sun" in d.find_element(By.ID, "cards").text)
    browser.find("#cards button[aria-label='Mark estrella as a favorite']").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#cards button[aria-label='Unmark estrella as a favorite']"))
    browser.find(f"{add_form} input[name=front]").send_keys(" ")
    browser.find(f"{add_form} button[type=submit]").click()
    wait.until(lambda d: d.find_element(By.ID, "refusal").is_displayed())
    check(browser.find("#refusal").text == "front: cannot be empty",
          f"a card the store would refuse is refused offline, by name ({browser.find('#refusal').text!r})")
    browser.check_names("deck-offline")
    kept = browser.driver.execute_async_script(KEPT_CARDS.replace("arguments_deck", repr(deck.split("/")[2])))
    check(len(kept) == 3, f"the replica holds the three cards answered ({kept})")
    server.restart()
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, **conditions})
    # The first page back sends what waits and reloads to show it; the next has nothing to send.
    browser.open(deck + "/study")
    ready()
    browser.open(deck + "/study")
    check(ready() == "true", "back online, the study page syncs")
    on_server = browser.driver.execute_async_script(
        "var done = arguments[0]; fetch('/api/v1/decks/" + deck.split("/")[2] + "/cards?limit=50', "
        "{credentials: 'same-origin'}).then(r => r.json()).then(j => done(j.cards));")
    check(all(card["id"] == card["id"].lower() for card in on_server), "the JSON API's ids are in lowercase")
    by_id = {card["id"]: card for card in on_server}
    for card in kept:
        server_card = by_id[card["id"]]
        due = datetime.fromisoformat(server_card["dueAt"].replace("Z", "+00:00")).timestamp()
        reviewed = datetime.fromisoformat(server_card["lastReviewAt"].replace("Z", "+00:00")).timestamp()
        check(server_card["reps"] == card["reps"] and abs(due - card["due"]) < 1
              and abs(reviewed - card["lastReview"]) < 1,
              f"{server_card['front']}: reviewed at its offline time, scheduled as the page did")
    check(sum(card["reps"] for card in on_server) == 4, "the four answers reached the server, once each")
    fronts_on_server = sorted(card["front"] for card in on_server)
    check(fronts_on_server == sorted(["sol", "luna", "mar", "estrella"] + ["{{c1::sol}} y {{c2::luna}}"] * 2),
          f"the cards added offline reached the server ({fronts_on_server})")
    check([card["back"] for card in on_server if card["front"] == "sol"] == ["the sun"],
          "and so did the edit made offline")
    check([(card["tags"], card["isFavorite"]) for card in on_server if card["front"] == "estrella"]
          == [(["astro", "Sky"], True)],
          "and the tags given and the favorite marked offline, tags found or made by name as any device does")
    store = ["--store", os.path.join(work, "offline-laptop.sqlite")]
    def laptop(*arguments: str, stdin: str = "") -> str:
        return subprocess.run([server.cardbox, *store, *arguments], input=stdin, text=True, check=True,
                              capture_output=True).stdout
    laptop("login", server.url, "--user", "admin", "--password-stdin", stdin="correct horse\n")
    laptop("sync")
    def seconds(text: str) -> float:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    synced = {card["id"].lower(): card for card in json.loads(laptop("card", "list", "Offline", "--json"))}
    check(all(abs(seconds(synced[card["id"]]["dueAt"]) - card["due"]) < 1 for card in kept),
          "a laptop that syncs has the same schedules")


def move_up(row) -> None:
    """An item's Move up, in its editor (opened by a tap on its title), on a list page drawn online
    or offline."""
    row.find_element(By.CSS_SELECTOR, "details.edit > summary").click()
    row.find_element(By.XPATH, ".//form[contains(@class, 'item-moves')]/button[text()='Move up']").click()


def page_body(browser: Browser) -> str:
    """A page's body as a person sees it, online or drawn offline: the main part's markup after the
    offline status line, with the session's CSRF token (which an offline page has none of) left out."""
    return browser.driver.execute_script("""
        var main = document.getElementById("replica-shell") || document.getElementById("main");
        var copy = main.cloneNode(true);
        copy.querySelectorAll("#offline-note, #changed, #set-aside, #sync-refusal").forEach(function (e) { e.remove(); });
        copy.querySelectorAll("input[name=csrf]").forEach(function (e) { e.removeAttribute("value"); });
        return copy.innerHTML.trim();""")


def offline_lists(browser: Browser, server: Server) -> None:
    """The browser is a device: every signed-in page keeps the account's replica in IndexedDB and
    syncs it. With no network a list page is drawn from it (the service worker's /offline/lists);
    items added, crossed out, moved, edited and deleted there, and lists made, are kept across
    reloads, by the replica's own rules (a quantity that is no number is refused by name), and
    reach the server through the sync API once the network is back."""
    browser.open("/lists")
    browser.fill({"name": "Market"})
    browser.submit()
    list_path = urlparse(browser.driver.current_url).path
    for title, quantity in (("Apples", "3"), ("Pears", "")):
        browser.fill({"title": title, "quantity": quantity}, within="#add-item")
        browser.submit('#add-item button[type="submit"]')
    # The page reloads itself after a push: a read that meets it mid-way is tried again.
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(WebDriverException,))
    ready = lambda d: d.execute_script("return document.body.dataset.replicaReady")
    wait.until(lambda d: ready(d) in ("true", "failed"))
    check(ready(browser.driver) == "true", "a signed-in page syncs the browser's replica")
    # The list as the server draws it (not just after an add, whose page puts the cursor in the form).
    browser.open(list_path)
    wait.until(lambda d: ready(d) in ("true", "failed"))
    browser.driver.execute_script("sessionStorage.setItem('marketOnline', arguments[0])", page_body(browser))
    browser.driver.execute_cdp_cmd("Network.enable", {})
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, **conditions})
    server.stop()
    # Read in one script: the page may reload (after its push) between finding a node and reading it.
    titles = lambda: browser.driver.execute_script(
        "return [...document.querySelectorAll('#items .title')].map((title) => title.textContent.trim())")
    def reload_offline() -> None:
        browser.driver.refresh()
        wait.until(lambda d: ready(d) in ("true", "failed"))
        check(ready(browser.driver) == "true", "with no network a list page is drawn from the replica")
    reload_offline()
    check(browser.find("h1").text == "Market" and titles() == ["Apples", "Pears"],
          f"offline, the list shows its items in order ({titles()})")
    check(browser.find("#offline-note").text == "Offline: nothing waits to be sent",
          f"a quiet line says the page is offline ({browser.find('#offline-note').text!r})")
    online_page = browser.driver.execute_script("return sessionStorage.getItem('marketOnline')")
    check(online_page == page_body(browser),
          "offline, the list page is the server's page: the same template, the same model, from the replica")
    def add(title: str, quantity: str) -> None:
        field = browser.find('#add-item input[name="title"]')
        field.send_keys(title)
        browser.find('#add-item input[name="quantity"]').send_keys(quantity)
        browser.find('#add-item button[type="submit"]').click()
    add("Cheese", "lots")
    wait.until(lambda d: not d.find_element(By.ID, "refusal").get_attribute("hidden"))
    check(browser.find("#refusal").text == "quantity: must be a whole number",
          f"a quantity that is no number is refused by name ({browser.find('#refusal').text!r})")
    browser.find('#add-item input[name="quantity"]').clear()
    browser.find('#add-item input[name="title"]').clear()
    add("Cheese", "2")
    wait.until(lambda d: titles() == ["Apples", "Pears", "Cheese"])
    row = lambda title: browser.driver.find_element(By.XPATH, f"//li[.//span[@class='title' and text()='{title}']]")
    row("Apples").find_element(By.CSS_SELECTOR, "button.check").click()
    wait.until(lambda d: "crossed" in (row("Apples").get_attribute("class") or ""))
    # Crossed out, Apples sinks below the others; Cheese moves up past Pears.
    wait.until(lambda d: titles() == ["Pears", "Cheese", "Apples"])
    move_up(row("Cheese"))
    wait.until(lambda d: titles() == ["Cheese", "Pears", "Apples"])
    reload_offline()
    # Three records wait (two items and their list), written by three changes: add, cross, move.
    check(browser.find("#offline-note").text == "Offline: 3 changes wait",
          f"the line says how many changes wait ({browser.find('#offline-note').text!r})")
    check(titles() == ["Cheese", "Pears", "Apples"] and "crossed" in (row("Apples").get_attribute("class") or ""),
          f"what was done offline is kept across a reload ({titles()})")
    # The list shows crossed-out items (the setting an earlier step turned on): hidden, then shown.
    browser.find("#toggle-crossed").click()
    wait.until(lambda d: titles() == ["Cheese", "Pears"])
    browser.find("#toggle-crossed").click()
    wait.until(lambda d: titles() == ["Cheese", "Pears", "Apples"])
    row("Cheese").find_element(By.CSS_SELECTOR, "details.edit > summary").click()
    editor = row("Cheese").find_element(By.CSS_SELECTOR, "details.edit > form")
    editor.find_element(By.NAME, "quantity").clear()
    editor.find_element(By.NAME, "quantity").send_keys("5")
    editor.find_element(By.NAME, "description").send_keys("aged")
    editor.find_element(By.CSS_SELECTOR, 'button[type="submit"]').click()
    wait.until(lambda d: "× 5" in row("Cheese").text and "aged" in row("Cheese").text)
    browser.shoot("list-offline")
    row("Pears").find_element(By.CSS_SELECTOR, "details.edit > summary").click()
    row("Pears").find_element(By.CSS_SELECTOR, "details.confirm > summary").click()
    row("Pears").find_element(By.CSS_SELECTOR, "details.confirm button.danger").click()
    wait.until(lambda d: titles() == ["Cheese", "Apples"])
    browser.open("/lists")
    wait.until(lambda d: ready(d) in ("true", "failed"))
    check("Market" in browser.text() and "2 items" in browser.text(),
          "offline, the lists page shows every list and how many items it has")
    browser.fill({"name": "Hardware"})
    browser.find('form[action="/lists"] button[type="submit"]').click()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Hardware")
    wait.until(lambda d: ready(d) == "true")
    add("Nails", "")
    wait.until(lambda d: titles() == ["Nails"])
    check(urlparse(browser.driver.current_url).path != list_path and browser.find("h1").text == "Hardware",
          "offline, a new list opens on its page and takes items")
    # A board offline: the server's board page, from the replica; a card moved to the next column.
    browser.open("/boards")
    wait.until(lambda d: ready(d) == "true")
    browser.driver.find_element(By.LINK_TEXT, "Trip").click()
    wait.until(lambda d: ready(d) == "true" and d.find_element(By.TAG_NAME, "h1").text == "Trip")
    browser.find('button[aria-label="Move Book flights to the next column"]').click()
    wait.until(lambda d: "Book flights" in d.execute_script(
        "return [...document.querySelectorAll('.column')][2].textContent"))
    check(True, "offline, a board's card moves to the next column")
    board_path = urlparse(browser.driver.current_url).path
    # A record the server refuses (an id not in the sync's form), first among what waits: the push
    # names it, the browser sets it aside, and the rest still goes through.
    browser.driver.execute_async_script(BOGUS_PENDING)
    server.restart()
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, **conditions})
    browser.open(list_path)
    # The page pushes what waits, then reloads to show it; that page syncs (nothing to send) in turn.
    wait.until(lambda d: ready(d) == "failed" or ("Cheese" in titles() and ready(d) == "true"))
    check(ready(browser.driver) == "true",
          "back online, the replica syncs: "
          + str(browser.driver.execute_script("return document.body.dataset.replicaError")))
    on_server = browser.driver.execute_async_script(
        "var done = arguments[0]; fetch('/api/v1/lists/" + list_path.split("/")[2] + "', "
        "{credentials: 'same-origin'}).then(r => r.json()).then(j => done(j));")
    items = on_server.get("list", {}).get("items", [])
    check([i["title"] for i in items] == ["Apples", "Cheese"]
          and [i["isCrossedOut"] for i in items] == [True, False]
          and items[1].get("quantity") == 5 and items[1].get("description") == "aged",
          f"once the network is back, what was done offline is on the server ({on_server})")
    set_aside = wait.until(lambda d: d.find_element(By.ID, "set-aside")).text
    check("item “Bogus”: changes.rows[0].id: 'not-an-id' is not a item id" in set_aside,
          f"the record the server refused is set aside and shown with its reason ({set_aside!r})")
    browser.open("/lists")
    check("Hardware" in browser.text(), "and so is the list made offline")
    browser.open(board_path)
    done = browser.driver.execute_script("return [...document.querySelectorAll('.column')][2].textContent")
    check("Book flights" in done, "and the board card moved offline")
    wait.until(lambda d: ready(d) in ("true", "failed"))
    browser.open("/lists")
    wait.until(lambda d: ready(d) in ("true", "failed"))
    check(browser.driver.execute_script("return document.body.dataset.replicaSync") == "unchanged",
          "a page load with nothing new on either side leaves the kept replica unread")


def offline_with_a_laptop(browser: Browser, server: Server, work: str) -> None:
    """The browser and a command-line device work offline on the same list and deck at once: the
    browser answers two cards, crosses an item out, adds one and moves it; the laptop renames
    another item, crosses a third out and answers the browser's first card too. Back online, the
    browser, the server (a new device's first sync) and the laptop hold the same records, line for
    line with their clocks (`cardbox sync records`, the replica's own dump), the laptop's backup is
    the server's, and the card both answered has both reviews in its history. The browser keeps its
    replica with a journal of two entries here, so the snapshot is written again as it works."""
    def device(name: str):
        store = ["--store", os.path.join(work, name + ".sqlite")]
        def run(*arguments: str, stdin: str = "") -> str:
            return subprocess.run([server.cardbox, *store, *arguments], input=stdin, text=True, check=True,
                                  capture_output=True).stdout
        run("login", server.url, "--user", "admin", "--password-stdin", stdin="correct horse\n")
        run("sync")
        return run
    laptop = device("proof-laptop")
    made = lambda *arguments: json.loads(laptop(*arguments, "--json"))["id"].lower()
    list_id = made("list", "create", "Trip")
    items = {title: made("item", "add", "Trip", title) for title in ("Tent", "Map", "Boots")}
    deck_id = made("deck", "create", "Proof", "--front", "es", "--back", "en")
    cards = {front: made("card", "add", "Proof", front, back) for front, back in (("uno", "one"), ("dos", "two"))}
    laptop("sync")
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(StaleElementReferenceException, WebDriverException))
    ready = lambda d: d.execute_script("return document.body.dataset.replicaReady")
    def settled(path: str) -> None:
        # The first load sends what waits and reloads; the second has nothing to send.
        for _ in range(2):
            browser.open(path)
            wait.until(lambda d: ready(d) in ("true", "failed"))
        check(ready(browser.driver) == "true", f"{path} syncs the browser's replica")
    compacting = browser.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": "self.cardboxJournalLimit = 2;"})["identifier"]
    settled("/lists/" + list_id)
    snapshots = lambda: browser.driver.execute_async_script(RESTORE_KEPT + "restoreKept(function (_, state) { done(state.snapshotVersion); });")
    first_snapshot = snapshots()
    browser.open(f"/decks/{deck_id}/study")
    wait.until(lambda d: d.execute_script("return document.body.dataset.offlineReady") == "true")
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, **conditions})
    server.stop()
    # The browser, offline: two answers, then the list.
    browser.driver.refresh()
    drawn = lambda: int(browser.driver.execute_script("return document.body.dataset.pageDrawn || '0'"))
    wait.until(lambda _: drawn() > 0)
    answered = []
    for rating in ("3", "1"):
        answered.append(browser.find("#front").text)
        before = drawn()
        browser.keys(" ")
        wait.until(lambda d: d.find_element(By.ID, "back").is_displayed())
        browser.keys(rating)
        wait.until(lambda _: drawn() > before)
    check(answered == ["uno", "dos"], f"offline, the browser answers the deck's cards in order ({answered})")
    browser.open("/lists/" + list_id)
    wait.until(lambda d: ready(d) == "true")
    titles = lambda: browser.driver.execute_script(
        "return [...document.querySelectorAll('#items .title')].map((title) => title.textContent.trim())")
    row = lambda title: browser.driver.find_element(By.XPATH, f"//li[.//span[@class='title' and text()='{title}']]")
    # Items not crossed out, in order (crossed-out ones sink below them).
    open_titles = lambda: browser.driver.execute_script(
        "return [...document.querySelectorAll('#items > li:not(.crossed) .title')].map((t) => t.textContent.trim())")
    row("Tent").find_element(By.CSS_SELECTOR, "button.check").click()
    wait.until(lambda d: "crossed" in (row("Tent").get_attribute("class") or ""))
    browser.find('#add-item input[name="title"]').send_keys("Stove")
    browser.find('#add-item button[type="submit"]').click()
    wait.until(lambda _: open_titles()[-1:] == ["Stove"])
    move_up(row("Stove"))
    wait.until(lambda _: open_titles()[-2:] == ["Stove", "Boots"])
    # Meanwhile the laptop, offline too: a rename, a cross, an answer of the browser's first card.
    laptop("item", "edit", items["Map"], "--title", "Paper map")
    laptop("item", "cross", items["Boots"])
    laptop("card", "answer", cards["uno"], "3")
    server.restart()
    browser.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, **conditions})
    laptop("sync")
    settled("/lists/" + list_id)
    laptop("sync")
    settled("/lists")
    witness = device("proof-witness")
    records = {
        "laptop": laptop("sync", "records").rstrip("\n"),
        "server": witness("sync", "records").rstrip("\n"),
        "browser": browser.driver.execute_async_script(KEPT_DUMP),
    }
    check(records["browser"] == records["laptop"] == records["server"],
          "the browser, the server and the laptop hold the same records, clocks and all "
          f"({[len(text.splitlines()) for text in records.values()]} lines)")
    check(snapshots() > first_snapshot, "the browser wrote its snapshot again as it worked (a short journal)")
    browser.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": compacting})
    def backup(run) -> dict:
        tables = json.loads(run("export", "backup"))["tables"]
        return {name: sorted(json.dumps(row, sort_keys=True) for row in rows)
                for name, rows in tables.items() if name != "usageEvent"}
    check(backup(laptop) == backup(witness), "the laptop's backup is the server's")
    trip = [json.loads(line) for line in records["laptop"].splitlines()]
    fields = {line["id"]: line["fields"] for line in trip if line["entity"] == "item"}
    check(fields[items["Map"]]["title"][0] == "Paper map" and fields[items["Boots"]]["isCrossedOut"][0]
          and fields[items["Tent"]]["isCrossedOut"][0] and any(f["title"][0] == "Stove" for f in fields.values()),
          "both devices' list changes are merged")
    reviews = [line for line in trip if line["entity"] == "reviewLog" and line["fields"]["cardId"][0] == cards["uno"]]
    check(len(reviews) == 2 and len({review["created"][1] for review in reviews}) == 2,
          f"the card both answered has both reviews in its history, one from each device ({len(reviews)})")


KEPT_DUMP = RESTORE_KEPT + "restoreKept(function (replica) { done(replica.dump()); });"


def merged_decks(browser: Browser, server: Server, work: str) -> None:
    """A deck made in the browser and one of the same name made on a laptop before it first synced:
    the decks page tells them apart by when each was made, and one is merged into the other."""
    browser.open("/decks")
    browser.fill({"name": "Twins"})
    browser.choose({"front": "es", "back": "en"})
    browser.submit()
    store = ["--store", os.path.join(work, "twin-laptop.sqlite")]
    run = lambda *arguments, stdin="": subprocess.run(
        [server.cardbox, *store, *arguments], input=stdin, text=True, check=True, capture_output=True).stdout
    run("deck", "create", "Twins", "--front", "es", "--back", "en")
    run("card", "add", "Twins", "gemelo", "twin")
    run("login", server.url, "--user", "admin", "--password-stdin", stdin="correct horse\n")
    run("sync")
    browser.open("/decks")
    rows = [row for row in browser.driver.find_elements(By.CSS_SELECTOR, "#decks > li")
            if row.find_element(By.TAG_NAME, "strong").text == "Twins"]
    check(len(rows) == 2 and all("made" in row.text for row in rows), "two decks of one name say when each was made")
    rows[0].find_element(By.CSS_SELECTOR, "details.confirm > summary").click()
    browser.submit_in(rows[0], "details.confirm button[type=submit]")
    check("gemelo" in browser.find("#cards").text, "merged, the deck kept holds the other's card")
    browser.open("/decks")
    names = [e.text for e in browser.driver.find_elements(By.CSS_SELECTOR, "#decks > li strong")]
    check(names.count("Twins") == 1, f"and the merged deck is gone ({names})")
    run("sync")
    check(run("deck", "list").count("Twins") == 1, "the laptop has one Twins after its next sync")


def upgraded_from_the_last_release(browser: Browser) -> None:
    """A browser that kept its replica the last release's way (IndexedDB version 1: every record in
    one text in the state) and has a change waiting: the next page upgrades the database (the text
    becomes the snapshot) and sends the change, which reaches the server."""
    browser.open("/lists")
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(StaleElementReferenceException, WebDriverException))
    wait.until(lambda d: d.execute_script("return document.body.dataset.replicaReady") == "true")
    made = browser.driver.execute_async_script(KEPT_AS_LAST_RELEASE)
    check(made.get("waiting", 0) >= 1, f"a list waits in a database of the last release's form ({made})")
    for _ in range(2):  # the first page sends it and reloads
        browser.open("/lists")
        wait.until(lambda d: d.execute_script("return document.body.dataset.replicaReady") in ("true", "failed"))
    on_server = browser.driver.execute_async_script(
        "var done = arguments[0]; fetch('/api/v1/lists', {credentials: 'same-origin'})"
        ".then(r => r.json()).then(j => done(j.lists.map(l => l.list.name)));")
    check("Kept by the last release" in on_server, f"the upgraded replica sent what waited ({on_server})")
    stores = browser.driver.execute_async_script(
        "var done = arguments[0]; var o = indexedDB.open('cardbox-replica-' + localStorage.getItem('cardbox.account'));"
        "o.onsuccess = () => { var db = o.result; var tx = db.transaction(['state', 'snapshot']);"
        "var state = tx.objectStore('state').get('replica'), snapshot = tx.objectStore('snapshot').get('replica');"
        "tx.oncomplete = () => { done([db.version, [...db.objectStoreNames].sort(), 'saved' in state.result,"
        " state.result.snapshotVersion, (snapshot.result || '').includes('Kept by the last release')]); db.close(); }; };")
    check(stores == [2, ["journal", "snapshot", "state"], False, 1, True],
          f"the database is in this release's form, the last release's records its snapshot ({stores})")


# Writes the account's replica the last release's way: the page's own replica (restored from what is
# kept) makes a list, and its records and what waits become a version 1 database's state.
KEPT_AS_LAST_RELEASE = RESTORE_KEPT + """
var account = localStorage.getItem("cardbox.account");
var name = "cardbox-replica-" + account;
var setup = self.cardboxReplicaSetup;
navigator.locks.request(name, function () {
  return new Promise(function (resolve) {
    restoreKept(function (replica, kept) {
      replica.createList({ id: "0195f6a2-7c1e-7b3a-9e4f-" + String(Date.now()).slice(-12), name: "Kept by the last release" },
        Date.now());
      var old = { version: 1, replicaId: kept.replicaId, cursor: kept.cursor, sending: null,
        saved: replica.saved(account, setup.registry), pending: replica.pending(account, setup.registry).text,
        waiting: replica.pendingCount() };
      var removed = indexedDB.deleteDatabase(name);
      removed.onsuccess = function () {
        var made = indexedDB.open(name, 1);
        made.onupgradeneeded = function () { made.result.createObjectStore("state").put(old, "replica"); };
        made.onsuccess = function () { made.result.close(); resolve({ waiting: old.waiting }); };
      };
    });
  });
}).then(done);
"""


# Puts a record the server refuses first among what waits (under the page's lock).
BOGUS_PENDING = """
var done = arguments[arguments.length - 1];
navigator.locks.request("cardbox-replica-" + localStorage.getItem("cardbox.account"), function () {
  return new Promise(function (resolve) {
    var open = indexedDB.open("cardbox-replica-" + localStorage.getItem("cardbox.account"));
    open.onsuccess = function () {
      var tx = open.result.transaction(["state"], "readwrite");
      var states = tx.objectStore("state");
      states.get("replica").onsuccess = function (read) {
        var state = read.target.result;
        state.pending = state.pending.replace('"rows":[',
          '"rows":[{"created":0,"entity":"item","fields":{"title":["Bogus",0]},"id":"not-an-id"},');
        state.waiting += 1;
        state.version += 1;
        states.put(state, "replica");
      };
      tx.oncomplete = function () { open.result.close(); resolve(); };
    };
  });
}).then(function () { done(true); });
"""


REVIEWS_KEPT = RESTORE_KEPT + """
restoreKept(function (replica) {
  done(keptRows(replica).filter(function (row) {
    return row.entity === "reviewLog" && row.fields.deckId[0] === arguments_deck;
  }).map(function (row) { return row.fields.cardId[0]; }));
});
"""


def api(browser: Browser, path: str):
    """A JSON API answer, fetched by the page with its session."""
    return browser.driver.execute_async_script(
        "var done = arguments[0]; fetch(" + json.dumps(path) + ", {credentials: 'same-origin'})"
        ".then(r => r.json()).then(done);")


def two_tabs(browser: Browser, server: Server) -> None:
    """Two tabs studying one deck with no network take turns on the account's replica (a Web Lock):
    a tab never answers a card the other answered meanwhile, so six answers are six different cards,
    and the server gets six reviews."""
    browser.open("/decks")
    browser.fill({"name": "Tabs"})
    browser.choose({"front": "es", "back": "en"})
    browser.submit()
    deck = urlparse(browser.driver.current_url).path
    for front in ("uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho"):
        browser.fill({"front": front, "back": "x"})
        browser.submit()
    browser.open(deck + "/study")
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: d.execute_script("return document.body.dataset.offlineReady") == "true")
    server.stop()
    first = browser.driver.current_window_handle
    browser.driver.refresh()
    browser.driver.switch_to.new_window("tab")
    second = browser.driver.current_window_handle
    browser.open(deck + "/study")
    drawn = lambda: int(browser.driver.execute_script("return document.body.dataset.pageDrawn || '0'"))
    for tab in (first, second):
        browser.driver.switch_to.window(tab)
        wait.until(lambda _: drawn() > 0)
    answered = lambda: browser.driver.execute_async_script(
        REVIEWS_KEPT.replace("arguments_deck", repr(deck.split("/")[2])))
    presses = 0
    # Each tab in turn answers the card it shows; a tab showing a card the other answered draws the
    # next one instead, and is asked again.
    while len(answered()) < 6 and presses < 30:
        browser.driver.switch_to.window((first, second)[presses % 2])
        for _ in range(2):
            before, count = drawn(), len(answered())
            browser.keys(" ")
            wait.until(lambda d: d.find_element(By.ID, "back").is_displayed())
            browser.keys("3")
            wait.until(lambda _: drawn() > before)
            if len(answered()) > count:
                break
        presses += 1
    cards = answered()
    check(len(cards) == 6 and len(set(cards)) == 6, f"two tabs offline answer six different cards ({cards})")
    browser.driver.close()
    browser.driver.switch_to.window(first)
    server.restart()
    browser.open(deck + "/study")
    wait.until(lambda d: d.execute_script("return document.body.dataset.offlineReady") == "true")
    browser.open(deck + "/study")
    wait.until(lambda d: d.execute_script("return document.body.dataset.offlineReady") == "true")
    on_server = api(browser, "/api/v1/decks/" + deck.split("/")[2] + "/cards?limit=50")["cards"]
    reps = sorted(card["reps"] for card in on_server)
    check(reps == [0, 0, 1, 1, 1, 1, 1, 1], f"the server has six reviews, one of each card ({reps})")


def two_accounts(browser: Browser, server: Server) -> None:
    """Each account keeps its own replica in the browser: changes account A made offline survive
    account B's sign-in on the same browser, never reach B, and reach A when A signs in again. A
    sign-out with the server down asks before anything is lost."""
    server.admin("user", "add", "bea", "--password-stdin", stdin="bea's password\n")
    browser.open("/lists")
    browser.fill({"name": "Errands"})
    browser.submit()
    list_path = urlparse(browser.driver.current_url).path
    browser.fill({"title": "Stamps", "quantity": ""}, within="#add-item")
    browser.submit('#add-item button[type="submit"]')
    wait = WebDriverWait(browser.driver, 30, ignored_exceptions=(WebDriverException,))
    ready = lambda d: d.execute_script("return document.body.dataset.replicaReady")
    wait.until(lambda d: ready(d) == "true")
    browser.open(list_path)
    wait.until(lambda d: ready(d) == "true")
    server.stop()
    browser.driver.refresh()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#items button.check"))
    browser.find("#items button.check").click()
    waiting = lambda d: re.fullmatch(r"Offline: (\d+) changes? waits?", d.find_element(By.ID, "offline-note").text)
    count = wait.until(waiting).group(1)
    # Signing out while the sync cannot be reached: the page says what would be lost and asks;
    # staying keeps the change.
    server.restart()
    browser.driver.execute_cdp_cmd("Network.enable", {})
    browser.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/sync/*"]})
    browser.open("/decks")
    wait.until(lambda d: ready(d) == "failed")
    browser.driver.execute_script("document.querySelector('form[action=\"/signout\"]').requestSubmit()")
    alert = wait.until(EC.alert_is_present())
    changes = "1 change" if count == "1" else f"{count} changes"
    check(alert.text == f"{changes} made on this device could not be sent. Sign out and lose them?",
          f"signing out when the sync cannot be reached says what would be lost ({alert.text!r})")
    alert.dismiss()
    check(urlparse(browser.driver.current_url).path == "/decks" and "Sign out" in browser.text(),
          "and staying keeps the session, and the change")
    browser.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    # A's session ends without signing out (it expired, say); B signs in on this browser.
    browser.driver.delete_all_cookies()
    browser.open("/signin")
    browser.fill({"user": "bea", "password": "bea's password"})
    browser.submit()
    browser.open("/lists")
    wait.until(lambda d: ready(d) == "true")
    check("Errands" not in browser.text(), "B's pages show nothing of A's")
    check(api(browser, "/api/v1/lists")["lists"] == [], "and nothing of A's reached B's account")
    browser.driver.delete_all_cookies()
    browser.open("/signin")
    browser.fill({"user": "admin", "password": "correct horse"})
    browser.submit()
    browser.open(list_path)
    wait.until(lambda d: ready(d) == "true")
    browser.open(list_path)
    wait.until(lambda d: ready(d) == "true")
    items = api(browser, "/api/v1" + list_path)["list"]["items"]
    check([item["isCrossedOut"] for item in items] == [True],
          f"A's change made offline reached A once A signed in again ({items})")


def account_and_sign_out(browser: Browser) -> None:
    browser.open("/account")
    check("Premium plan" in browser.text() and "this browser" in browser.text(),
          "the account page shows the plan and this browser among the devices")
    devices = browser.find("#devices").text
    check("Chrome on Linux" in devices, f"a browser is named as people name it: {devices!r}")
    check(not re.search(r"\d{4}-\d\d-\d\dT\d\d:", devices) and re.search(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d", devices),
          "times read as '26 Nov 2026, 14:32', not raw ISO")
    browser.shoot("account")
    account = browser.driver.execute_script("return document.body.dataset.account")
    databases = lambda: browser.driver.execute_async_script(
        "var done = arguments[0]; indexedDB.databases().then((found) => done(found.map((d) => d.name)));")
    check(f"cardbox-replica-{account}" in databases(), "the signed-in account keeps its replica in the browser")
    browser.submit('header button[type="submit"]')
    check(browser.driver.current_url.endswith("/signin"), "signing out goes to the sign-in page")
    kept = databases()
    check(f"cardbox-replica-{account}" not in kept and any(name.startswith("cardbox-replica-") for name in kept),
          f"signing out takes the account's replica from the browser, and leaves another account's ({kept})")
    browser.open("/decks")
    check(browser.driver.current_url.endswith("/signin"), "and the decks need signing in again")
    browser.shoot("signin")
    browser.fill({"user": "admin", "password": "wrong horse"})
    browser.submit()
    check(browser.find('[role="alert"]').text == "Wrong account name or password.",
          "a wrong password is said in a sentence, without an internal prefix")
    browser.fill({"user": "admin", "password": "correct horse"})
    browser.submit()
    check(browser.driver.current_url.endswith("/decks"), "signing in again opens the decks")


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    screenshots = sys.argv[2] if len(sys.argv) > 2 else ".build/web-screenshots"
    os.makedirs(screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cardbox-web-")
    server = Server(os.path.abspath(sys.argv[1]), work)
    browser = None
    try:
        browser = Browser(server.url, screenshots)
        started = time.monotonic()
        def step(name: str, run) -> object:
            """Runs one part of the test, saying how long it took (a slow part shows in CI's log)."""
            begun = time.monotonic()
            result = run()
            print(f"web test: {name} took {time.monotonic() - begun:.1f} s")
            return result
        step("first run", lambda: first_run(browser, server.setup_path))
        deck = step("deck and cards", lambda: deck_and_cards(browser))
        step("live", lambda: live(browser, deck))
        step("card editor", lambda: card_editor(browser, deck))
        step("study", lambda: study(browser, deck))
        step("stats", lambda: stats(browser, deck))
        step("dark mode", lambda: dark_mode(browser, deck))
        step("lists", lambda: lists(browser))
        step("import and export", lambda: import_export(browser))
        step("boards", lambda: boards(browser))
        step("card limit", lambda: card_limit(browser, server, deck))
        step("cloze", lambda: cloze(browser))
        step("suggestions", lambda: suggestions(browser, server, work, deck))
        step("offline study", lambda: offline_study(browser, server, work))
        step("offline lists", lambda: offline_lists(browser, server))
        step("offline with a laptop", lambda: offline_with_a_laptop(browser, server, work))
        step("merged decks", lambda: merged_decks(browser, server, work))
        step("upgraded from the last release", lambda: upgraded_from_the_last_release(browser))
        step("two tabs", lambda: two_tabs(browser, server))
        step("two accounts", lambda: two_accounts(browser, server))
        step("account and sign-out", lambda: account_and_sign_out(browser))
        print(f"web app: every check passed in {time.monotonic() - started:.0f} s; screenshots in {screenshots}")
    finally:
        if browser:
            browser.quit()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
